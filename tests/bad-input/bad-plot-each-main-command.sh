"$HEADALLOC" --budget 512 --samples 1e8 --plot p.png --plot-each
