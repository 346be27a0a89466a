"$HEADALLOC" weights cov.yaml --plot picture
