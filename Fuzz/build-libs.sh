#!/usr/bin/env bash
# Builds libpng, libjpeg-turbo and giflib from Debian's own sources (the versions `make deps` installs) with
# libFuzzer coverage and sanitizers, so the C fuzzers (Fuzz/run-c.sh with FUZZ_LIBS=source) are guided through
# the decoders' code and not only through nse's checkers.
#
#   Fuzz/build-libs.sh OUT_DIR CLANG
#
# Sources come from `apt-get source` with a private sources list and state directory under OUT_DIR, so the
# machine's apt configuration is not touched. Writes OUT_DIR/include (headers) and OUT_DIR/lib (static libs).
# Only the decoding half of each library is built: the checkers never encode.
set -euo pipefail
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
CLANG=$2
# AddressSanitizer and coverage, optimised: the libraries' inner loops (IDCT, inflate, LZW) dominate each run.
# No UndefinedBehaviorSanitizer here: its findings in Debian's libraries would not be nse's to fix.
FLAGS=(-g -O2 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address -w)

if [ ! -f "$OUT/lib/libjpeg.a" ] || [ ! -f "$OUT/lib/libpng16.a" ] || [ ! -f "$OUT/lib/libgif.a" ]; then
    apt_dir="$OUT/apt"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache" "$OUT/src" "$OUT/include" "$OUT/lib"
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    if [ ! -f "$keyring" ] || [ "$(. /etc/os-release && echo "$ID")" != debian ]; then
        echo "build-libs.sh: needs a Debian system (its archive keyring and source packages)" >&2
        exit 1
    fi
    # The source packages come from the archives the machine already installs from: its own apt configuration,
    # each `deb` entry turned into `deb-src` in a private copy (one-line lists and deb822 .sources files alike).
    : > "$apt_dir/sources.list"
    mkdir -p "$apt_dir/sources.list.d"
    for list in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$list" ] && sed -n 's/^deb \(.*\)$/deb-src \1/p' "$list" >> "$apt_dir/sources.list"
    done
    for sources in /etc/apt/sources.list.d/*.sources; do
        [ -f "$sources" ] && sed 's/^Types:.*$/Types: deb-src/' "$sources" > "$apt_dir/sources.list.d/$(basename "$sources")"
    done
    apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
                 -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
    apt-get "${apt_options[@]}" -qq update
    # The upstream tarballs are enough: Debian's patches change no API the checkers use.
    (cd "$OUT/src" && apt-get "${apt_options[@]}" -qq source --download-only libpng1.6 libjpeg-turbo giflib 2>/dev/null || true)
    for package in libpng1.6 libjpeg-turbo giflib; do
        tarball=$(ls "$OUT/src/${package}"_*.orig.tar.* | head -1)
        tar -xf "$tarball" -C "$OUT/src"
    done

    compile() {  # compile NAME SOURCE_DIR INCLUDE_FLAGS... -- FILES...
        local name=$1 dir=$2; shift 2
        local includes=()
        while [ "$1" != "--" ]; do includes+=("$1"); shift; done; shift
        local objects=()
        for file in "$@"; do
            "$CLANG" "${FLAGS[@]}" "${includes[@]}" -c "$dir/$file" -o "$OUT/src/$name-${file%.c}.o"
            objects+=("$OUT/src/$name-${file%.c}.o")
        done
        ar rcs "$OUT/lib/lib$name.a" "${objects[@]}"
    }

    gif=$(ls -d "$OUT"/src/giflib-*/)
    compile gif "$gif" -I"$gif" -- dgif_lib.c gif_err.c gifalloc.c gif_hash.c openbsd-reallocarray.c
    cp "$gif/gif_lib.h" "$OUT/include/"

    png=$(ls -d "$OUT"/src/libpng-*/)
    cp "$png/scripts/pnglibconf.h.prebuilt" "$png/pnglibconf.h"
    compile png16 "$png" -I"$png" -- png.c pngerror.c pngget.c pngmem.c pngread.c pngrio.c pngrtran.c pngrutil.c \
        pngset.c pngtrans.c pngwio.c pngwrite.c pngwtran.c pngwutil.c
    cp "$png/png.h" "$png/pngconf.h" "$png/pnglibconf.h" "$OUT/include/"

    # libjpeg-turbo is configured by CMake; its three generated headers are written here instead, as Debian's
    # libjpeg62-turbo is configured: the libjpeg 6.2 API, arithmetic coding, no SIMD (plain C for the fuzzer).
    jpeg=$(ls -d "$OUT"/src/libjpeg-turbo-*/)
    version=$(basename "$jpeg" | sed 's/libjpeg-turbo-//')
    IFS=. read -r major minor patch <<<"$version"
    cat > "$jpeg/jconfig.h" <<HEADER
#define JPEG_LIB_VERSION 62
#define LIBJPEG_TURBO_VERSION $version
#define LIBJPEG_TURBO_VERSION_NUMBER $((major * 1000000 + minor * 1000 + patch))
#define C_ARITH_CODING_SUPPORTED 1
#define D_ARITH_CODING_SUPPORTED 1
#define MEM_SRCDST_SUPPORTED 1
#define BITS_IN_JSAMPLE 8
HEADER
    sed -e 's/@BUILD@/fuzz/' -e 's/@INLINE@/__inline__ __attribute__((always_inline))/' \
        -e 's/@THREAD_LOCAL@/__thread/' -e 's/@CMAKE_PROJECT_NAME@/libjpeg-turbo/' -e "s/@VERSION@/$version/" \
        -e 's/@SIZE_T@/8/' -e 's/#cmakedefine HAVE_BUILTIN_CTZL/#define HAVE_BUILTIN_CTZL/' \
        -e 's/#cmakedefine HAVE_INTRIN_H//' "$jpeg/jconfigint.h.in" > "$jpeg/jconfigint.h"
    sed -e 's/@COPYRIGHT_YEAR@/1991-2022/' "$jpeg/jversion.h.in" > "$jpeg/jversion.h"
    compile jpeg "$jpeg" -I"$jpeg" -- jaricom.c jcomapi.c jdapimin.c jdapistd.c jdarith.c jdatasrc.c jdcoefct.c \
        jdcolor.c jddctmgr.c jdhuff.c jdicc.c jdinput.c jdmainct.c jdmarker.c jdmaster.c jdmerge.c jdphuff.c \
        jdpostct.c jdsample.c jerror.c jidctflt.c jidctfst.c jidctint.c jidctred.c jmemmgr.c jmemnobs.c \
        jquant1.c jquant2.c jutils.c jsimd_none.c
    cp "$jpeg/jpeglib.h" "$jpeg/jmorecfg.h" "$jpeg/jerror.h" "$jpeg/jconfig.h" "$OUT/include/"
fi
