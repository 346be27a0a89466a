printf 'PK\003\004\024\0\0\0\0\0archive/data.pkl' > pytorch_model.bin && "$HEADALLOC" hdi pytorch_model.bin --heads 12
