h='{"k":{"dtype":"F32","shape":[4,2],"data_offsets":[0,32]}}'
{ printf "\\x$(printf %02x ${#h})\0\0\0\0\0\0\0%s" "$h"; head -c 32 /dev/zero; } > zero.safetensors
"$HEADALLOC" hdi zero.safetensors --heads 2
