# A build without PLplot refuses --plot on every command and writes
# nothing.
D=$(dirname "$0")/../../data
"$HEADALLOC" --budget 512 --samples 1e8 --plot p.png
echo "status $?"
"$HEADALLOC" weights "$D/cov3.yaml" --plot w.svg
echo "status $?"
"$HEADALLOC" hdi "$D/two-layers.safetensors" --heads 12 --plot h.pdf --plot-each
echo "status $?"
ls
