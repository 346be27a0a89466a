# A report that cannot be written takes its picture with it.
"$HEADALLOC" --budget 512 --samples 1e8 --plot p.png > /dev/full
echo "status $?"
ls
