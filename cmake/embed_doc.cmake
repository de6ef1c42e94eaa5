# Embed a text file in the program as a C array, at build time: run as
#   cmake -DIN=docs/troubleshooting.md -DOUT=gen/x.c -DNAME=lsc_doc_x -P embed_doc.cmake
# `loadscope explain` prints its sections, so the program says the same as
# the page it ships with, offline.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}.tmp" "/* Generated from ${IN} by cmake/embed_doc.cmake; do not edit. */\n#include <stddef.h>\nconst unsigned char ${NAME}[] = {\n${body}0x00};\nconst size_t ${NAME}_len = sizeof(${NAME}) - 1;\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
