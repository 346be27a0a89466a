mkdir out
"$HEADALLOC" --budget 512 --samples 1e8 --output out
echo "exit $?"
ls
