D=$(dirname "$0")/../data
cp "$D/bad-header.npy" . && "$HEADALLOC" hdi bad-header.npy --heads 2
