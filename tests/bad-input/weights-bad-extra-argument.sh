"$HEADALLOC" weights a.yaml b.yaml
