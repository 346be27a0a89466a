# A 16000008-byte header (0xF42408) is past the 16 MB limit, refused
# before it is read.
printf '\010\044\364\000\000\000\000\000{}' > w.safetensors && "$HEADALLOC" hdi w.safetensors --heads 2
