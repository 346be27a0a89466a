# An output that outgrows the file size limit (ulimit -f): SIGXFSZ kills
# the run, the old file stays whole and the temporary file goes.
ulimit -c 0
echo previous > out.yaml
(ulimit -f 64; exec "$HEADALLOC" --budget 512 --samples 1e4:1e12:100000 --format yaml --output out.yaml) &
wait $! 2>/dev/null
echo "exit $?"
cat out.yaml
ls
# With SIGXFSZ ignored the write fails instead (EFBIG): one line, exit 1.
(trap '' XFSZ; ulimit -f 64; exec "$HEADALLOC" --budget 512 --samples 1e4:1e12:100000 --format yaml --output out.yaml)
echo "exit $?"
cat out.yaml
ls
