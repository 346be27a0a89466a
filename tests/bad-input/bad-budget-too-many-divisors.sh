B=9200527969062830400
"$HEADALLOC" --budget "$(for d in $(seq 2 80); do printf "%s," $((B / d)); done)$B" --samples 1e8
