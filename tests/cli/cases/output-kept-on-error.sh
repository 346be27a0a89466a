echo previous > out.yaml
"$HEADALLOC" --budget 512 --samples 1e8 --head-dim-multiple 3 --output out.yaml
echo "exit $?"
cat out.yaml
ls
