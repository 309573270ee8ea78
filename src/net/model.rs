//! KataGo's model files: the .bin.gz and .txt.gz formats of model versions 8 to 15.
