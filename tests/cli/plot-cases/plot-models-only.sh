# The public-model comparison alone has no picture.
"$HEADALLOC" --config "$(dirname "$0")/../../../data/public-models.yaml" --plot models.png
echo "status $?"
ls
