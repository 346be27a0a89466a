"$HEADALLOC" --budget 512 --samples 1e8 --plot picture.jpg
