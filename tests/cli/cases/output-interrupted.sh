# A run killed in the middle of writing leaves the previous file whole.
# SIGTERM/SIGINT/SIGHUP also remove the temporary file; SIGKILL cannot be
# caught, so its temporary file stays beside the untouched target.
echo previous > out.yaml
"$HEADALLOC" --budget 512 --samples 1e4:1e12:1000000 --format yaml --output out.yaml &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid 2>/dev/null
echo "exit $?"
cat out.yaml
ls
"$HEADALLOC" --budget 512 --samples 1e4:1e12:1000000 --format yaml --output out.yaml &
pid=$!
sleep 0.5
kill -KILL $pid
wait $pid 2>/dev/null
echo "exit $?"
cat out.yaml
n=$(ls | grep -c '^out\.yaml\.tmp-')
[ "$n" -le 1 ] && echo "at most one temporary file"
