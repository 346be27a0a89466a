"$HEADALLOC" --help
