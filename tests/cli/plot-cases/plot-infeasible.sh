# No allocation, no picture: an existing file is left as it was.
echo old > p.png
"$HEADALLOC" --budget 512 --samples 1e8 --min-head-dim 1000 --plot p.png
echo "status $?"
cat p.png
