printf "budgets: [512]\nsamples: 1e8\n" > s.yaml && ln s.yaml hard.yaml && ln -s s.yaml soft.yaml
"$HEADALLOC" --config soft.yaml --output hard.yaml
