"$HEADALLOC" --budget 768 --samples 3.3e9 --hdi 0.4 --smoothness 3 --bias-coef 2 --var-coef 0.5 --format yaml
