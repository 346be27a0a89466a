# Whether --output is written in place follows what the path is, not its
# name: a regular file under /dev/shm or reached through /proc/self/cwd is
# replaced atomically (an infeasible run leaves it whole), a FIFO and
# /dev/null are written in place, a dangling symbolic link is followed to
# the file it names and kept.
dir=$(mktemp -d /dev/shm/headalloc-test.XXXXXX)
echo old > "$dir/out.yaml"
"$HEADALLOC" --budget 512 --samples 1e8 --min-heads 1000 --output "$dir/out.yaml"
echo "exit $? $(cat "$dir/out.yaml") $(ls "$dir")"
"$HEADALLOC" --budget 512 --samples 1e8 --output "$dir/out.yaml"
echo "exit $? $(grep -c head_dim "$dir/out.yaml") $(ls "$dir")"
rm -rf "$dir"
echo old > cwd.yaml
"$HEADALLOC" --budget 512 --samples 1e8 --min-heads 1000 --output /proc/self/cwd/cwd.yaml
echo "exit $? $(cat cwd.yaml)"
mkfifo pipe
cat pipe > got.txt &
"$HEADALLOC" --budget 512 --samples 1e8 --output pipe
echo "exit $?"
wait
grep -c head_dim got.txt
"$HEADALLOC" --budget 512 --samples 1e8 --output /dev/null
echo "exit $?"
ln -s new.yaml dangling.yaml
"$HEADALLOC" --budget 512 --samples 1e8 --output dangling.yaml
echo "exit $?"
test -L dangling.yaml && echo "link kept"
grep -c head_dim new.yaml
ls
