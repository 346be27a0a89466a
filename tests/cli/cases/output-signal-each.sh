# Every catchable way out while --output is being written leaves the old
# file whole and no temporary file: a sweep long enough to be caught in
# the middle, each signal sent once the temporary file exists.  Job
# control (set -m) keeps SIGINT and SIGQUIT from being ignored by the
# background job; no core files.
set -m
ulimit -c 0
for sig in INT TERM HUP QUIT PIPE XCPU ALRM USR1 USR2 VTALRM PROF; do
	echo previous > out.yaml
	"$HEADALLOC" --budget 512 --samples 1e4:1e12:1000000 --format yaml --output out.yaml &
	pid=$!
	for i in $(seq 600); do
		ls out.yaml.tmp-* >/dev/null 2>&1 && break
		sleep 0.05
	done
	kill -$sig $pid
	wait $pid 2>/dev/null
	echo "$sig: exit $? $(cat out.yaml) $(ls | tr '\n' ' ')"
done
