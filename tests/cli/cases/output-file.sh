"$HEADALLOC" --budget 512 --samples 1e8 --format yaml --output out.yaml
echo "exit $?"
cmp out.yaml <("$HEADALLOC" --budget 512 --samples 1e8 --format yaml) && echo same
ls
