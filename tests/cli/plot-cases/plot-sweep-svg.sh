# A sweep's picture beside a YAML report written to --output: both
# written, the SVG well-formed.
"$HEADALLOC" --budget 128,512 --samples 1e4:1e12:9 --format yaml --output report.yaml --plot sweep.svg
echo "status $?"
head -c 38 sweep.svg; echo
xmllint --noout sweep.svg && echo "well-formed"
head -n 3 report.yaml
ls
