D=$(dirname "$0")/../../data
cp "$D/heads12-in-out.npy" . && "$HEADALLOC" hdi heads12-in-out.npy --heads 12 --layout in-out
