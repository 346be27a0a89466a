# weights: the bars and the covariance in an SVG beside the report.
D=$(dirname "$0")/../../data
cp "$D/cov3.yaml" . && "$HEADALLOC" weights cov3.yaml --plot weights.svg
xmllint --noout weights.svg && echo "well-formed"
