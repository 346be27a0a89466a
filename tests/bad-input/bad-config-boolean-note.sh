printf "models:\n  - {name: BERT-base, heads: 12, head_dim: 64, note: yes}\n" > s.yaml
"$HEADALLOC" --config s.yaml
