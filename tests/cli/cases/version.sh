"$HEADALLOC" --version
