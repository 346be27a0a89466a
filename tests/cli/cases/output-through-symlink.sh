echo old > real.yaml
chmod 640 real.yaml
ln -s real.yaml link.yaml
"$HEADALLOC" --budget 512 --samples 1e8 --format yaml --output link.yaml
echo "exit $?"
test -L link.yaml && echo "link kept"
stat -c %a real.yaml
grep -c head_dim real.yaml
ls
