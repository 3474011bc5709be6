package main

// The file_token of Airflow 2's DAG schema: the DAG file's path signed as
// itsdangerous' URLSafeSerializer signs it with the webserver's secret key
// (compact JSON, base64url without padding, "." and an HMAC-SHA1 under a
// key derived "django-concat" style from the salt "itsdangerous"). airlite
// draws its secret key at start, as Airflow draws one when none is set, so
// tokens are good for the life of the process.

import (
	"bytes"
	"compress/zlib"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

var errBadSignature = errors.New("bad signature")

// fileTokenKey is the signing key derived from a secret key.
func fileTokenKey(secret []byte) []byte {
	h := sha1.New()
	h.Write([]byte("itsdangeroussigner"))
	h.Write(secret)
	return h.Sum(nil)
}

func fileTokenSignature(secret []byte, payload string) string {
	mac := hmac.New(sha1.New, fileTokenKey(secret))
	mac.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// signFileToken is URLSafeSerializer(secret).dumps(path). itsdangerous
// compresses the JSON when that saves more than a byte; paths never
// shrink that much, so airlite leaves them as they are (loadFileToken
// reads both forms).
func signFileToken(secret []byte, path string) string {
	return signPayload(secret, appendPyString(nil, path))
}

// signJSON signs any value as compact JSON (a log's continuation token).
func signJSON(secret []byte, v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return signPayload(secret, raw), nil
}

func signPayload(secret, jsonText []byte) string {
	payload := base64.RawURLEncoding.EncodeToString(jsonText)
	return payload + "." + fileTokenSignature(secret, payload)
}

// loadFileToken is URLSafeSerializer(secret).loads(token): the path, or
// errBadSignature for a token this secret did not sign.
func loadFileToken(secret []byte, token string) (string, error) {
	raw, err := loadSignedJSON(secret, token)
	if err != nil {
		return "", err
	}
	var path string
	if err := json.Unmarshal(raw, &path); err != nil {
		return "", errBadSignature
	}
	return path, nil
}

// loadSignedJSON checks a token's signature and returns its JSON.
func loadSignedJSON(secret []byte, token string) ([]byte, error) {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return nil, errBadSignature
	}
	payload, sig := token[:i], token[i+1:]
	if !hmac.Equal([]byte(sig), []byte(fileTokenSignature(secret, payload))) {
		return nil, errBadSignature
	}
	compressed := strings.HasPrefix(payload, ".")
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(strings.TrimRight(payload, "="), "."))
	if err != nil {
		return nil, errBadSignature
	}
	if compressed {
		zr, err := zlib.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, errBadSignature
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, maxBodyBytes)); err != nil {
			return nil, errBadSignature
		}
	}
	return raw, nil
}
