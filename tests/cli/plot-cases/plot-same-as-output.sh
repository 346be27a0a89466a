"$HEADALLOC" --budget 512 --samples 1e8 --output same.svg --plot same.svg
echo "status $?"
ls
