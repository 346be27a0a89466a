# Under nohup (SIGHUP ignored) a hangup does not stop the run: the
# ignored signal stays ignored while --output is written.
trap '' HUP
echo previous > out.yaml
"$HEADALLOC" --budget 512 --samples 1e4:1e12:100000 --format yaml --output out.yaml &
pid=$!
for i in $(seq 600); do
	ls out.yaml.tmp-* >/dev/null 2>&1 && break
	sleep 0.05
done
kill -HUP $pid
wait $pid
echo "exit $?"
grep -c '^  - budget: 512' out.yaml
tail -n 1 out.yaml
ls
