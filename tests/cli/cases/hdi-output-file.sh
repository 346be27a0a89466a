D=$(dirname "$0")/../../data
cp "$D/heads12-f32.safetensors" . &&
"$HEADALLOC" hdi heads12-f32.safetensors --heads 12 -f yaml -o report.yaml && echo "status $?" &&
head -n 12 report.yaml | awk -f "$(dirname "$0")/../round-floats.awk"
