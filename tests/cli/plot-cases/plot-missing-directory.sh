# A picture that cannot be created stops the run before anything is
# computed or written.
"$HEADALLOC" --budget 512 --samples 1e8 --output report.txt --plot no/such/dir/p.png
echo "status $?"
ls
