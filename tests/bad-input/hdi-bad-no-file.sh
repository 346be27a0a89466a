"$HEADALLOC" hdi --heads 12
