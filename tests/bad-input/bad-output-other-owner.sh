echo old > out.yaml && chown 12345 out.yaml && "$HEADALLOC" --budget 512 --samples 1e8 --output out.yaml
