printf 'models:\n  - {name: "a\\u009b31mb", heads: 12, head_dim: 64}\n' > s.yaml
"$HEADALLOC" --config s.yaml
