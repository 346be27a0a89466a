# A refused output is refused before any work and leaves every file as
# it was: the scenario named as the output, a read-only file, a file of
# someone else's (rename would hand it over; this part needs root, as CI
# is), a file with another hard link.
printf "budgets: [512]\nsamples: 1e8\n" > s.yaml
"$HEADALLOC" --config s.yaml --output s.yaml
echo "exit $?"
cat s.yaml
echo old > ro.yaml && chmod 444 ro.yaml
"$HEADALLOC" --budget 512 --samples 1e8 --output ro.yaml
echo "exit $? $(cat ro.yaml) $(stat -c %a ro.yaml)"
echo old > theirs.yaml && chown 12345 theirs.yaml
"$HEADALLOC" --budget 512 --samples 1e8 --output theirs.yaml
echo "exit $? $(cat theirs.yaml) $(stat -c %u theirs.yaml)"
echo old > linked.yaml && ln linked.yaml other.yaml
"$HEADALLOC" --budget 512 --samples 1e8 --output linked.yaml
echo "exit $? $(cat linked.yaml) $(cat other.yaml)"
ls
