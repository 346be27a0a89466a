# --plot leaves the report as it was and writes a PNG of the size the
# picture has, the same bytes every time, and no temporary file.
"$HEADALLOC" --budget 512 --samples 1e8 > plain.txt
"$HEADALLOC" --budget 512 --samples 1e8 --plot landscape.png > with.txt
cmp plain.txt with.txt && echo "the report is unchanged"
od -An -c -N8 landscape.png
od -An -tu1 -j16 -N8 landscape.png | awk '{print "size " $3 * 256 + $4 "x" $7 * 256 + $8}'
"$HEADALLOC" --budget 512 --samples 1e8 --plot again.png > /dev/null
cmp landscape.png again.png && echo "the same bytes again"
ls
