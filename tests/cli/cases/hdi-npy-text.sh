D=$(dirname "$0")/../../data
cp "$D/heads12-f32.npy" . && "$HEADALLOC" hdi heads12-f32.npy --heads 12
