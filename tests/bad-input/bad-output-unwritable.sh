"$HEADALLOC" --budget 512 --samples 1e8 --output /nonexistent/dir/out.yaml
