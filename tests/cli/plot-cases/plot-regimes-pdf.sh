# --regimes draws the regimes; a PDF without its creation date.
"$HEADALLOC" --budget 512,4096 --regimes --plot regimes.PDF > /dev/null
echo "status $?"
head -c 8 regimes.PDF; echo
echo "dates: $(grep -a -c CreationDate regimes.PDF)"
tail -c 6 regimes.PDF
