printf "budgets: [512]\nbudgets: [1024]\n" > s.yaml
"$HEADALLOC" --config s.yaml
