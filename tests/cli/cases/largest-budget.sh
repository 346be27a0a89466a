"$HEADALLOC" --budget 9223372036854775807 --samples 1e300 --format yaml
