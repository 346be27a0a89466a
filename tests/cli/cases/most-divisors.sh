"$HEADALLOC" --budget 897612484786617600 --samples 1e12 --format yaml
