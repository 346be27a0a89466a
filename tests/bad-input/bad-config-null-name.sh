printf "models:\n  - {name: ~, heads: 12, head_dim: 64}\n" > s.yaml
"$HEADALLOC" --config s.yaml
