"$HEADALLOC" --config missing.yaml
