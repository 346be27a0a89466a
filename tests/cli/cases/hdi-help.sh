"$HEADALLOC" hdi --help
