"$HEADALLOC" weights -h
