echo old > out.yaml && chmod 444 out.yaml && "$HEADALLOC" --budget 512 --samples 1e8 --output out.yaml
