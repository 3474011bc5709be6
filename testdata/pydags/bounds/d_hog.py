# airflow dag: asks for more memory than the bound allows
hog = bytearray(1 << 34)
