echo old > out.yaml && ln out.yaml other.yaml && "$HEADALLOC" --budget 512 --samples 1e8 --output out.yaml
