D=$(dirname "$0")/../../data
# One head: the HDI is 1 by definition, without a decomposition; an
# all-zero single head is still an error.
cp "$D/heads12-f32.safetensors" . && "$HEADALLOC" hdi heads12-f32.safetensors --heads 1 --format yaml
h='{"k":{"dtype":"F32","shape":[2,1],"data_offsets":[0,8]}}'
{ printf "\\x$(printf %02x ${#h})\0\0\0\0\0\0\0%s" "$h"; head -c 8 /dev/zero; } > zero.safetensors
"$HEADALLOC" hdi zero.safetensors --heads 1
echo "exit $?"
