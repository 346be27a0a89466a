"$HEADALLOC" weights missing.yaml
