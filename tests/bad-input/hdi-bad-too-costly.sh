# [1, 266240] read in-out: 1024 heads of d_k 260 over d_model 1, whose
# overlaps take 266240^2 multiply-adds: refused before the data is read.
h='{"k":{"dtype":"F32","shape":[1,266240],"data_offsets":[0,1064960]}}'
{ printf "\\x$(printf %02x ${#h})\0\0\0\0\0\0\0%s" "$h"; head -c 1064960 /dev/zero; } > w.safetensors
"$HEADALLOC" hdi w.safetensors --heads 1024 --layout in-out
