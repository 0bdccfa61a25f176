/* Tests of the snarkjs JSON files (proof.json, public.json,
 * verification_key.json): byte-exact agreement with files snarkjs wrote,
 * round trips on both curves, and every class of rejection with its status.
 *
 * The known-answer texts below were written by snarkjs's own JSON writer
 * (bfj, {space: 1}) from objects built with ffjavascript: points are the
 * generators (and 2·G1, and infinity), and vk_alphabeta_12 is ffjavascript's
 * e(G1, G2), so reading and rewriting them checks our Fp12 tower and pairing
 * value against ffjavascript's. Every document is read from an exact-size heap
 * copy, so AddressSanitizer builds catch any read past its end. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "curve/encoding.h"
#include "field/field.h"
#include "formats/snarkjs_json.h"
#include "pairing/pairing.h"
#include "test.h"
#include "util/fileio.h"

static const char kat_proof_bn128[] =
    "{\n"
    " \"pi_a\": [\n"
    "  \"1\",\n"
    "  \"2\",\n"
    "  \"1\"\n"
    " ],\n"
    " \"pi_b\": [\n"
    "  [\n"
    "   \"10857046999023057135944570762232829481370756359578518086990519993285655852781\",\n"
    "   \"11559732032986387107991004021392285783925812861821192530917403151452391805634\"\n"
    "  ],\n"
    "  [\n"
    "   \"8495653923123431417604973247489272438418190587263600148770280649306958101930\",\n"
    "   \"4082367875863433681332203403145435568316851327593401208105741076214120093531\"\n"
    "  ],\n"
    "  [\n"
    "   \"1\",\n"
    "   \"0\"\n"
    "  ]\n"
    " ],\n"
    " \"pi_c\": [\n"
    "  \"0\",\n"
    "  \"1\",\n"
    "  \"0\"\n"
    " ],\n"
    " \"protocol\": \"groth16\",\n"
    " \"curve\": \"bn128\"\n"
    "}";

static const char kat_proof_bls12381[] =
    "{\n"
    " \"pi_a\": [\n"
    "  \"3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104185464507\",\n"
    "  \"1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655353366534992391756441569\",\n"
    "  \"1\"\n"
    " ],\n"
    " \"pi_b\": [\n"
    "  [\n"
    "   \"352701069587466618187139116011060144890029952792775240219908644239793785735715026873347600343865175952761926303160\",\n"
    "   \"3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563104347017837885763365758\"\n"
    "  ],\n"
    "  [\n"
    "   \"1985150602287291935568054521177171638300868978215655730859378665066344726373823718423869104263333984641494340347905\",\n"
    "   \"927553665492332455747201965776037880757740193453592970025027978793976877002675564980949289727957565575433344219582\"\n"
    "  ],\n"
    "  [\n"
    "   \"1\",\n"
    "   \"0\"\n"
    "  ]\n"
    " ],\n"
    " \"pi_c\": [\n"
    "  \"0\",\n"
    "  \"1\",\n"
    "  \"0\"\n"
    " ],\n"
    " \"protocol\": \"groth16\",\n"
    " \"curve\": \"bls12381\"\n"
    "}";

static const char kat_vk_bn128[] =
    "{\n"
    " \"protocol\": \"groth16\",\n"
    " \"curve\": \"bn128\",\n"
    " \"nPublic\": 1,\n"
    " \"vk_alpha_1\": [\n"
    "  \"1\",\n"
    "  \"2\",\n"
    "  \"1\"\n"
    " ],\n"
    " \"vk_beta_2\": [\n"
    "  [\n"
    "   \"10857046999023057135944570762232829481370756359578518086990519993285655852781\",\n"
    "   \"11559732032986387107991004021392285783925812861821192530917403151452391805634\"\n"
    "  ],\n"
    "  [\n"
    "   \"8495653923123431417604973247489272438418190587263600148770280649306958101930\",\n"
    "   \"4082367875863433681332203403145435568316851327593401208105741076214120093531\"\n"
    "  ],\n"
    "  [\n"
    "   \"1\",\n"
    "   \"0\"\n"
    "  ]\n"
    " ],\n"
    " \"vk_gamma_2\": [\n"
    "  [\n"
    "   \"10857046999023057135944570762232829481370756359578518086990519993285655852781\",\n"
    "   \"11559732032986387107991004021392285783925812861821192530917403151452391805634\"\n"
    "  ],\n"
    "  [\n"
    "   \"8495653923123431417604973247489272438418190587263600148770280649306958101930\",\n"
    "   \"4082367875863433681332203403145435568316851327593401208105741076214120093531\"\n"
    "  ],\n"
    "  [\n"
    "   \"1\",\n"
    "   \"0\"\n"
    "  ]\n"
    " ],\n"
    " \"vk_delta_2\": [\n"
    "  [\n"
    "   \"10857046999023057135944570762232829481370756359578518086990519993285655852781\",\n"
    "   \"11559732032986387107991004021392285783925812861821192530917403151452391805634\"\n"
    "  ],\n"
    "  [\n"
    "   \"8495653923123431417604973247489272438418190587263600148770280649306958101930\",\n"
    "   \"4082367875863433681332203403145435568316851327593401208105741076214120093531\"\n"
    "  ],\n"
    "  [\n"
    "   \"1\",\n"
    "   \"0\"\n"
    "  ]\n"
    " ],\n"
    " \"vk_alphabeta_12\": [\n"
    "  [\n"
    "   [\n"
    "    \"17264119758069723980713015158403419364912226240334615592005620718956030922389\",\n"
    "    \"1300711225518851207585954685848229181392358478699795190245709208408267917898\"\n"
    "   ],\n"
    "   [\n"
    "    \"8894217292938489450175280157304813535227569267786222825147475294561798790624\",\n"
    "    \"1829859855596098509359522796979920150769875799037311140071969971193843357227\"\n"
    "   ],\n"
    "   [\n"
    "    \"4968700049505451466697923764727215585075098085662966862137174841375779106779\",\n"
    "    \"12814315002058128940449527172080950701976819591738376253772993495204862218736\"\n"
    "   ]\n"
    "  ],\n"
    "  [\n"
    "   [\n"
    "    \"4233474252585134102088637248223601499779641130562251948384759786370563844606\",\n"
    "    \"9420544134055737381096389798327244442442230840902787283326002357297404128074\"\n"
    "   ],\n"
    "   [\n"
    "    \"13457906610892676317612909831857663099224588803620954529514857102808143524905\",\n"
    "    \"5122435115068592725432309312491733755581898052459744089947319066829791570839\"\n"
    "   ],\n"
    "   [\n"
    "    \"8891987925005301465158626530377582234132838601606565363865129986128301774627\",\n"
    "    \"440796048150724096437130979851431985500142692666486515369083499585648077975\"\n"
    "   ]\n"
    "  ]\n"
    " ],\n"
    " \"IC\": [\n"
    "  [\n"
    "   \"1\",\n"
    "   \"2\",\n"
    "   \"1\"\n"
    "  ],\n"
    "  [\n"
    "   \"1368015179489954701390400359078579693043519447331113978918064868415326638035\",\n"
    "   \"9918110051302171585080402603319702774565515993150576347155970296011118125764\",\n"
    "   \"1\"\n"
    "  ]\n"
    " ]\n"
    "}";

static const char kat_vk_bls12381[] =
    "{\n"
    " \"protocol\": \"groth16\",\n"
    " \"curve\": \"bls12381\",\n"
    " \"nPublic\": 1,\n"
    " \"vk_alpha_1\": [\n"
    "  \"3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104185464507\",\n"
    "  \"1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655353366534992391756441569\",\n"
    "  \"1\"\n"
    " ],\n"
    " \"vk_beta_2\": [\n"
    "  [\n"
    "   \"352701069587466618187139116011060144890029952792775240219908644239793785735715026873347600343865175952761926303160\",\n"
    "   \"3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563104347017837885763365758\"\n"
    "  ],\n"
    "  [\n"
    "   \"1985150602287291935568054521177171638300868978215655730859378665066344726373823718423869104263333984641494340347905\",\n"
    "   \"927553665492332455747201965776037880757740193453592970025027978793976877002675564980949289727957565575433344219582\"\n"
    "  ],\n"
    "  [\n"
    "   \"1\",\n"
    "   \"0\"\n"
    "  ]\n"
    " ],\n"
    " \"vk_gamma_2\": [\n"
    "  [\n"
    "   \"352701069587466618187139116011060144890029952792775240219908644239793785735715026873347600343865175952761926303160\",\n"
    "   \"3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563104347017837885763365758\"\n"
    "  ],\n"
    "  [\n"
    "   \"1985150602287291935568054521177171638300868978215655730859378665066344726373823718423869104263333984641494340347905\",\n"
    "   \"927553665492332455747201965776037880757740193453592970025027978793976877002675564980949289727957565575433344219582\"\n"
    "  ],\n"
    "  [\n"
    "   \"1\",\n"
    "   \"0\"\n"
    "  ]\n"
    " ],\n"
    " \"vk_delta_2\": [\n"
    "  [\n"
    "   \"352701069587466618187139116011060144890029952792775240219908644239793785735715026873347600343865175952761926303160\",\n"
    "   \"3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563104347017837885763365758\"\n"
    "  ],\n"
    "  [\n"
    "   \"1985150602287291935568054521177171638300868978215655730859378665066344726373823718423869104263333984641494340347905\",\n"
    "   \"927553665492332455747201965776037880757740193453592970025027978793976877002675564980949289727957565575433344219582\"\n"
    "  ],\n"
    "  [\n"
    "   \"1\",\n"
    "   \"0\"\n"
    "  ]\n"
    " ],\n"
    " \"vk_alphabeta_12\": [\n"
    "  [\n"
    "   [\n"
    "    \"2819105605953691245277803056322684086884703000473961065716485506033588504203831029066448642358042597501014294104502\",\n"
    "    \"1323968232986996742571315206151405965104242542339680722164220900812303524334628370163366153839984196298685227734799\"\n"
    "   ],\n"
    "   [\n"
    "    \"2987335049721312504428602988447616328830341722376962214011674875969052835043875658579425548512925634040144704192135\",\n"
    "    \"3879723582452552452538684314479081967502111497413076598816163759028842927668327542875108457755966417881797966271311\"\n"
    "   ],\n"
    "   [\n"
    "    \"261508182517997003171385743374653339186059518494239543139839025878870012614975302676296704930880982238308326681253\",\n"
    "    \"231488992246460459663813598342448669854473942105054381511346786719005883340876032043606739070883099647773793170614\"\n"
    "   ]\n"
    "  ],\n"
    "  [\n"
    "   [\n"
    "    \"3993582095516422658773669068931361134188738159766715576187490305611759126554796569868053818105850661142222948198557\",\n"
    "    \"1074773511698422344502264006159859710502164045911412750831641680783012525555872467108249271286757399121183508900634\"\n"
    "   ],\n"
    "   [\n"
    "    \"2727588299083545686739024317998512740561167011046940249988557419323068809019137624943703910267790601287073339193943\",\n"
    "    \"493643299814437640914745677854369670041080344349607504656543355799077485536288866009245028091988146107059514546594\"\n"
    "   ],\n"
    "   [\n"
    "    \"734401332196641441839439105942623141234148957972407782257355060229193854324927417865401895596108124443575283868655\",\n"
    "    \"2348330098288556420918672502923664952620152483128593484301759394583320358354186482723629999370241674973832318248497\"\n"
    "   ]\n"
    "  ]\n"
    " ],\n"
    " \"IC\": [\n"
    "  [\n"
    "   \"3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104185464507\",\n"
    "   \"1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655353366534992391756441569\",\n"
    "   \"1\"\n"
    "  ],\n"
    "  [\n"
    "   \"838589206289216005799424730305866328161735431124665289961769162861615689790485775997575391185127590486775437397838\",\n"
    "   \"3450209970729243429733164009999191867485184320918914219895632678707687208996709678363578245114137957452475385814312\",\n"
    "   \"1\"\n"
    "  ]\n"
    " ]\n"
    "}";

/* Moduli in decimal: p of the base field and r of the scalar field. */
#define BN254_P "21888242871839275222246405745257275088696311157297823662689037894645226208583"
#define BN254_R "21888242871839275222246405745257275088548364400416034343698204186575808495617"
#define BN254_R_PLUS_1 "21888242871839275222246405745257275088548364400416034343698204186575808495618"
#define BN254_R_MINUS_1 "21888242871839275222246405745257275088548364400416034343698204186575808495616"
#define BLS_P                                                                                      \
    "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629" \
    "129015664037894272559787"
#define BLS_R "52435875175126190479447740508185965837690552500527637822603658699938581184513"
#define BLS_R_PLUS_1 "52435875175126190479447740508185965837690552500527637822603658699938581184514"

/* ---- helpers ---------------------------------------------------------------- */

static char *copy_exact(const char *s, size_t n) {
    char *c = malloc(n ? n : 1);
    ASSERT(c != NULL);
    if (n) memcpy(c, s, n);
    return c;
}

static zkpipe_status read_proof_n(const char *s, size_t n, zkp_g16_proof *p, zkp_diag *d) {
    char *c = copy_exact(s, n);
    zkpipe_status st = zkp_snarkjs_read_proof(c, n, "proof.json", p, d);
    free(c);
    return st;
}

static zkpipe_status read_vk_n(const char *s, size_t n, zkp_g16_vk *vk, zkp_diag *d) {
    char *c = copy_exact(s, n);
    zkpipe_status st = zkp_snarkjs_read_vk(c, n, "verification_key.json", vk, d);
    free(c);
    return st;
}

static zkpipe_status read_public_n(const char *s, size_t n, zkpipe_curve curve,
                                   zkp_g16_public *pub, zkp_diag *d) {
    char *c = copy_exact(s, n);
    zkpipe_status st = zkp_snarkjs_read_public(c, n, "public.json", curve, pub, d);
    free(c);
    return st;
}

/* s with the first occurrence of from replaced by to; the case fails if from
 * does not occur. The caller frees the result. */
static char *replaced(const char *s, const char *from, const char *to) {
    const char *at = strstr(s, from);
    ASSERT_MSG(at != NULL, "test text lacks <%s>", from);
    size_t a = (size_t)(at - s), fl = strlen(from), tl = strlen(to), sl = strlen(s);
    char *out = malloc(sl - fl + tl + 1);
    ASSERT(out != NULL);
    memcpy(out, s, a);
    memcpy(out + a, to, tl);
    memcpy(out + a + tl, at + fl, sl - a - fl + 1);
    return out;
}

/* Reads base with from → to and expects status want; a failure must leave a
 * message naming the file, and the output empty. */
enum kind { PROOF, VK, PUBLIC_BN, PUBLIC_BLS };

static void expect_status(enum kind k, const char *text, zkpipe_status want, const char *label) {
    zkp_diag d = {{0}};
    zkpipe_status st;
    if (k == PROOF) {
        zkp_g16_proof p;
        st = read_proof_n(text, strlen(text), &p, &d);
    } else if (k == VK) {
        zkp_g16_vk vk;
        st = read_vk_n(text, strlen(text), &vk, &d);
        if (st == ZKPIPE_OK) zkp_g16_vk_release(&vk);
        else ASSERT(vk.owned == NULL);
    } else {
        zkp_g16_public pub;
        st = read_public_n(text, strlen(text), k == PUBLIC_BN ? ZKPIPE_CURVE_BN254 : ZKPIPE_CURVE_BLS12_381,
                           &pub, &d);
        if (st == ZKPIPE_OK) zkp_g16_public_release(&pub);
        else ASSERT(pub.values == NULL && pub.n == 0);
    }
    ASSERT_MSG(st == want, "%s: got %s, expected %s (%s)", label, zkpipe_status_name(st),
               zkpipe_status_name(want), d.msg);
    if (st != ZKPIPE_OK) {
        const char *file = k == PROOF ? "proof.json" : k == VK ? "verification_key.json" : "public.json";
        ASSERT_MSG(strncmp(d.msg, file, strlen(file)) == 0, "%s: message <%s> does not name %s",
                   label, d.msg, file);
    }
}

static void expect_mut(enum kind k, const char *base, const char *from, const char *to,
                       zkpipe_status want) {
    char *t = replaced(base, from, to);
    char label[160];
    snprintf(label, sizeof label, "<%.60s> -> <%.60s>", from, to);
    expect_status(k, t, want, label);
    free(t);
}

static char *write_proof_s(const zkp_g16_proof *p) {
    char *out = NULL;
    size_t len = 0;
    ASSERT_OK(zkp_snarkjs_write_proof(p, &out, &len));
    ASSERT(out != NULL && strlen(out) == len);
    return out;
}

static char *write_vk_s(const zkp_g16_vk *vk) {
    char *out = NULL;
    size_t len = 0;
    ASSERT_OK(zkp_snarkjs_write_vk(vk, &out, &len));
    ASSERT(out != NULL && strlen(out) == len);
    return out;
}

static char *write_public_s(const zkp_g16_public *pub) {
    char *out = NULL;
    size_t len = 0;
    ASSERT_OK(zkp_snarkjs_write_public(pub, &out, &len));
    ASSERT(out != NULL && strlen(out) == len);
    return out;
}

/* Asserts two texts are equal; on mismatch shows the first difference. */
static void assert_text_eq(const char *what, const char *got, size_t got_len, const char *want,
                           size_t want_len) {
    if (got_len == want_len && memcmp(got, want, got_len) == 0) return;
    size_t i = 0;
    while (i < got_len && i < want_len && got[i] == want[i]) i++;
    size_t from = i > 40 ? i - 40 : 0;
    test_fail(__FILE__, __LINE__,
              "%s: texts differ at byte %zu (lengths %zu and %zu)\n  got:  ...%.80s\n  want: ...%.80s",
              what, i, got_len, want_len, got + from, want + from);
}

/* Reads a snarkjs-written text and writes it back: the bytes must match. */
static void rewrite_proof(const char *what, const char *text, size_t len) {
    zkp_g16_proof p;
    zkp_diag d = {{0}};
    zkpipe_status st = read_proof_n(text, len, &p, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s: %s: %s", what, zkpipe_status_name(st), d.msg);
    char *out = write_proof_s(&p);
    assert_text_eq(what, out, strlen(out), text, len);
    free(out);
}

static void rewrite_vk(const char *what, const char *text, size_t len, zkp_g16_vk *keep) {
    zkp_g16_vk vk;
    zkp_diag d = {{0}};
    zkpipe_status st = read_vk_n(text, len, &vk, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s: %s: %s", what, zkpipe_status_name(st), d.msg);
    char *out = write_vk_s(&vk);
    assert_text_eq(what, out, strlen(out), text, len);
    free(out);
    if (keep)
        *keep = vk;
    else
        zkp_g16_vk_release(&vk);
}

/* ---- random points, and the verification equation, per curve ---------------- */

#define DEFINE_CURVE_HELPERS(C, FR)                                                              \
    static void C##_rand_g1(C##_g1_affine_t *out) {                                              \
        C##_g1_affine_t g;                                                                       \
        C##_g1_jacobian_t j;                                                                     \
        uint64_t k[4];                                                                           \
        C##_g1_generator(&g);                                                                    \
        C##_g1_from_affine(&j, &g);                                                              \
        test_rng_bytes(k, sizeof k);                                                             \
        C##_g1_mul_var(&j, &j, k, 256);                                                          \
        C##_g1_to_affine(out, &j);                                                               \
    }                                                                                            \
    static void C##_rand_g2(C##_g2_affine_t *out) {                                              \
        C##_g2_affine_t g;                                                                       \
        C##_g2_jacobian_t j;                                                                     \
        uint64_t k[4];                                                                           \
        C##_g2_generator(&g);                                                                    \
        C##_g2_from_affine(&j, &g);                                                              \
        test_rng_bytes(k, sizeof k);                                                             \
        C##_g2_mul_var(&j, &j, k, 256);                                                          \
        C##_g2_to_affine(out, &j);                                                               \
    }                                                                                            \
    /* A uniform canonical scalar < r. */                                                        \
    static void C##_rand_fr(uint64_t out[4]) {                                                   \
        FR##_t m, c;                                                                             \
        for (;;) {                                                                               \
            test_rng_bytes(c.l, sizeof c.l);                                                     \
            c.l[3] >>= 1;                                                                        \
            if (FR##_is_reduced(&c)) break;                                                      \
        }                                                                                        \
        FR##_to_mont(&m, &c);                                                                    \
        FR##_from_mont(&c, &m);                                                                  \
        memcpy(out, c.l, sizeof c.l);                                                            \
    }                                                                                            \
    /* e(A, B) = e(alpha, beta)·e(vk_x, gamma)·e(C, delta), vk_x = IC_0 + sum x_i IC_i. */       \
    static int C##_verifies(const C##_g16_vk_t *vk, const C##_g16_proof_t *pr,                   \
                            const uint64_t *x, size_t n) {                                       \
        if (n != vk->n_public) return 0;                                                         \
        C##_g1_jacobian_t acc, t;                                                                \
        C##_g1_from_affine(&acc, &vk->ic[0]);                                                    \
        for (size_t i = 0; i < n; i++) {                                                         \
            C##_g1_from_affine(&t, &vk->ic[i + 1]);                                              \
            C##_g1_mul_var(&t, &t, &x[4 * i], 256);                                              \
            C##_g1_add(&acc, &acc, &t);                                                          \
        }                                                                                        \
        C##_g1_affine_t p[4];                                                                    \
        C##_g2_affine_t q[4];                                                                    \
        C##_g1_affine_neg(&p[0], &pr->a);                                                        \
        q[0] = pr->b;                                                                            \
        p[1] = vk->alpha1;                                                                       \
        q[1] = vk->beta2;                                                                        \
        C##_g1_to_affine(&p[2], &acc);                                                           \
        q[2] = vk->gamma2;                                                                       \
        p[3] = pr->c;                                                                            \
        q[3] = vk->delta2;                                                                       \
        return C##_pairing_product_is_one(p, q, 4);                                              \
    }

DEFINE_CURVE_HELPERS(bn254, bn254_fr)
DEFINE_CURVE_HELPERS(bls12_381, bls12_381_fr)

/* ---- byte-exact agreement with snarkjs ------------------------------------------ */

TEST_CASE(snarkjs_json_rewrites_snarkjs_bytes) {
    rewrite_proof("proof bn128", kat_proof_bn128, strlen(kat_proof_bn128));
    rewrite_proof("proof bls12381", kat_proof_bls12381, strlen(kat_proof_bls12381));
    /* The vk texts hold ffjavascript's e(G1, G2): the reader checks it against
     * ours and the writer recomputes it, so both directions test the tower
     * layout and the pairing value. */
    rewrite_vk("vk bn128", kat_vk_bn128, strlen(kat_vk_bn128), NULL);
    rewrite_vk("vk bls12381", kat_vk_bls12381, strlen(kat_vk_bls12381), NULL);
}

TEST_CASE(snarkjs_json_reads_known_values) {
    zkp_g16_proof p;
    ASSERT_OK(read_proof_n(kat_proof_bn128, strlen(kat_proof_bn128), &p, NULL));
    ASSERT_EQ_INT(p.curve, ZKPIPE_CURVE_BN254);
    bn254_g1_affine_t g1;
    bn254_g2_affine_t g2;
    bn254_g1_generator(&g1);
    bn254_g2_generator(&g2);
    ASSERT(bn254_g1_affine_eq(&p.u.bn254.a, &g1));
    ASSERT(bn254_g2_affine_eq(&p.u.bn254.b, &g2));
    ASSERT(bn254_g1_affine_is_infinity(&p.u.bn254.c));

    zkp_g16_vk vk;
    ASSERT_OK(read_vk_n(kat_vk_bls12381, strlen(kat_vk_bls12381), &vk, NULL));
    ASSERT_EQ_INT(vk.curve, ZKPIPE_CURVE_BLS12_381);
    ASSERT_EQ_U64(vk.u.bls12_381.n_public, 1);
    ASSERT(vk.owned != NULL && (const void *)vk.u.bls12_381.ic == vk.owned);
    bls12_381_g1_affine_t h1, two;
    bls12_381_g1_jacobian_t j;
    bls12_381_g1_generator(&h1);
    bls12_381_g1_from_affine(&j, &h1);
    bls12_381_g1_dbl(&j, &j);
    bls12_381_g1_to_affine(&two, &j);
    ASSERT(bls12_381_g1_affine_eq(&vk.u.bls12_381.alpha1, &h1));
    ASSERT(bls12_381_g1_affine_eq(&vk.u.bls12_381.ic[0], &h1));
    ASSERT(bls12_381_g1_affine_eq(&vk.u.bls12_381.ic[1], &two));
    zkp_g16_vk_release(&vk);

    /* vk_alphabeta_12 is optional on read. */
    char *t = replaced(kat_vk_bn128, "\"vk_alphabeta_12\"", "\"unused_alphabeta\"");
    ASSERT_OK(read_vk_n(t, strlen(t), &vk, NULL));
    char *w = write_vk_s(&vk);
    assert_text_eq("vk without alphabeta, rewritten", w, strlen(w), kat_vk_bn128, strlen(kat_vk_bn128));
    free(w);
    free(t);
    zkp_g16_vk_release(&vk);
}

/* Files snarkjs wrote for real circuits: tests/fixtures/<shape>_small_<curve>/. */
static char *fixture_text(const char *dir, const char *file, size_t *len) {
    char rel[512];
    snprintf(rel, sizeof rel, "fixtures/%s/%s", dir, file);
    char *text = NULL;
    zkp_diag d = {{0}};
    zkpipe_status st = zkp_read_file(test_data_path(rel), ZKP_SNARKJS_MAX_TEXT, &text, len, &d);
    ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);
    return text;
}

TEST_CASE(snarkjs_json_fixture_files_byte_exact_and_verify) {
    DIR *dir = opendir(test_data_path("fixtures"));
    if (dir == NULL) test_skip("no tests/fixtures directory");
    int seen = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (strstr(e->d_name, "_small_") == NULL) continue;
        char rel[400];
        snprintf(rel, sizeof rel, "fixtures/%s/proof.json", e->d_name);
        FILE *probe = fopen(test_data_path(rel), "rb");
        if (probe == NULL) continue; /* still being generated */
        fclose(probe);
        seen++;
        size_t vl, pl, ul;
        char *vt = fixture_text(e->d_name, "verification_key.json", &vl);
        char *pt = fixture_text(e->d_name, "proof.json", &pl);
        char *ut = fixture_text(e->d_name, "public.json", &ul);
        char what[400];
        snprintf(what, sizeof what, "%s/verification_key.json", e->d_name);
        zkp_g16_vk vk;
        rewrite_vk(what, vt, vl, &vk);
        snprintf(what, sizeof what, "%s/proof.json", e->d_name);
        rewrite_proof(what, pt, pl);
        zkp_g16_proof proof;
        ASSERT_OK(read_proof_n(pt, pl, &proof, NULL));
        ASSERT_EQ_INT(proof.curve, vk.curve);
        zkp_g16_public pub;
        zkp_diag d = {{0}};
        zkpipe_status st = read_public_n(ut, ul, vk.curve, &pub, &d);
        ASSERT_MSG(st == ZKPIPE_OK, "%s/public.json: %s", e->d_name, d.msg);
        char *w = write_public_s(&pub);
        snprintf(what, sizeof what, "%s/public.json", e->d_name);
        assert_text_eq(what, w, strlen(w), ut, ul);
        free(w);
        /* The three files read back into a proof that verifies. */
        int ok = vk.curve == ZKPIPE_CURVE_BN254
                     ? bn254_verifies(&vk.u.bn254, &proof.u.bn254, pub.values, pub.n)
                     : bls12_381_verifies(&vk.u.bls12_381, &proof.u.bls12_381, pub.values, pub.n);
        ASSERT_MSG(ok, "%s: the proof does not verify", e->d_name);
        /* ... and no longer does with a public input changed. */
        if (pub.n > 0) {
            pub.values[0] ^= 1;
            ok = vk.curve == ZKPIPE_CURVE_BN254
                     ? bn254_verifies(&vk.u.bn254, &proof.u.bn254, pub.values, pub.n)
                     : bls12_381_verifies(&vk.u.bls12_381, &proof.u.bls12_381, pub.values, pub.n);
            ASSERT_MSG(!ok, "%s: verifies with a wrong public input", e->d_name);
        }
        zkp_g16_public_release(&pub);
        zkp_g16_vk_release(&vk);
        free(vt);
        free(pt);
        free(ut);
    }
    closedir(dir);
    if (seen == 0) test_skip("no tests/fixtures/*_small_* files yet");
}

/* ---- round trips ------------------------------------------------------------- */

#define DEFINE_ROUND_TRIPS(C, CURVE)                                                             \
    static void C##_proof_round_trip(int infinity_a) {                                           \
        zkp_g16_proof p, q;                                                                      \
        memset(&p, 0, sizeof p);                                                                 \
        p.curve = CURVE;                                                                         \
        C##_rand_g1(&p.u.C.a);                                                                   \
        C##_rand_g2(&p.u.C.b);                                                                   \
        C##_rand_g1(&p.u.C.c);                                                                   \
        if (infinity_a) C##_g1_affine_set_infinity(&p.u.C.a);                                    \
        char *t1 = write_proof_s(&p);                                                            \
        ASSERT_OK(read_proof_n(t1, strlen(t1), &q, NULL));                                       \
        ASSERT_EQ_INT(q.curve, CURVE);                                                           \
        ASSERT(C##_g1_affine_eq(&p.u.C.a, &q.u.C.a));                                            \
        ASSERT(C##_g2_affine_eq(&p.u.C.b, &q.u.C.b));                                            \
        ASSERT(C##_g1_affine_eq(&p.u.C.c, &q.u.C.c));                                            \
        char *t2 = write_proof_s(&q);                                                            \
        ASSERT_STR_EQ(t1, t2);                                                                   \
        free(t1);                                                                                \
        free(t2);                                                                                \
    }                                                                                            \
    static void C##_vk_round_trip(uint32_t n_public) {                                           \
        C##_g1_affine_t *ic = malloc((n_public + 1) * sizeof *ic);                               \
        ASSERT(ic != NULL);                                                                      \
        zkp_g16_vk vk, back;                                                                     \
        memset(&vk, 0, sizeof vk);                                                               \
        vk.curve = CURVE;                                                                        \
        vk.u.C.n_public = n_public;                                                              \
        C##_rand_g1(&vk.u.C.alpha1);                                                             \
        C##_rand_g2(&vk.u.C.beta2);                                                              \
        C##_rand_g2(&vk.u.C.gamma2);                                                             \
        C##_rand_g2(&vk.u.C.delta2);                                                             \
        for (uint32_t i = 0; i <= n_public; i++) C##_rand_g1(&ic[i]);                            \
        if (n_public >= 2) C##_g1_affine_set_infinity(&ic[2]);                                   \
        vk.u.C.ic = ic;                                                                          \
        char *t1 = write_vk_s(&vk);                                                              \
        zkp_diag d = {{0}};                                                                      \
        zkpipe_status st = read_vk_n(t1, strlen(t1), &back, &d);                                 \
        ASSERT_MSG(st == ZKPIPE_OK, "%s", d.msg);                                                \
        ASSERT_EQ_INT(back.curve, CURVE);                                                        \
        ASSERT_EQ_U64(back.u.C.n_public, n_public);                                              \
        ASSERT(C##_g1_affine_eq(&vk.u.C.alpha1, &back.u.C.alpha1));                              \
        ASSERT(C##_g2_affine_eq(&vk.u.C.beta2, &back.u.C.beta2));                                \
        ASSERT(C##_g2_affine_eq(&vk.u.C.gamma2, &back.u.C.gamma2));                              \
        ASSERT(C##_g2_affine_eq(&vk.u.C.delta2, &back.u.C.delta2));                              \
        for (uint32_t i = 0; i <= n_public; i++) ASSERT(C##_g1_affine_eq(&ic[i], &back.u.C.ic[i])); \
        char *t2 = write_vk_s(&back);                                                            \
        ASSERT_STR_EQ(t1, t2);                                                                   \
        free(t1);                                                                                \
        free(t2);                                                                                \
        free(ic);                                                                                \
        zkp_g16_vk_release(&back);                                                               \
    }                                                                                            \
    static void C##_public_round_trip(size_t n) {                                                \
        zkp_g16_public pub, back;                                                                \
        pub.curve = CURVE;                                                                       \
        pub.n = n;                                                                               \
        pub.values = n ? malloc(n * 4 * sizeof(uint64_t)) : NULL;                                \
        for (size_t i = 0; i < n; i++) C##_rand_fr(&pub.values[4 * i]);                          \
        if (n > 1) memset(&pub.values[4], 0, 4 * sizeof(uint64_t));                              \
        char *t1 = write_public_s(&pub);                                                         \
        ASSERT_OK(read_public_n(t1, strlen(t1), CURVE, &back, NULL));                            \
        ASSERT_EQ_U64(back.n, n);                                                                \
        ASSERT_EQ_INT(back.curve, CURVE);                                                        \
        if (n) ASSERT_MEM_EQ(back.values, pub.values, n * 4 * sizeof(uint64_t));                 \
        char *t2 = write_public_s(&back);                                                        \
        ASSERT_STR_EQ(t1, t2);                                                                   \
        free(t1);                                                                                \
        free(t2);                                                                                \
        free(pub.values);                                                                        \
        zkp_g16_public_release(&back);                                                           \
    }

DEFINE_ROUND_TRIPS(bn254, ZKPIPE_CURVE_BN254)
DEFINE_ROUND_TRIPS(bls12_381, ZKPIPE_CURVE_BLS12_381)

TEST_CASE(snarkjs_json_proof_round_trip) {
    for (unsigned i = 0; i < test_iters(4); i++) {
        bn254_proof_round_trip(0);
        bls12_381_proof_round_trip(0);
    }
    bn254_proof_round_trip(1);
    bls12_381_proof_round_trip(1);
}

TEST_CASE(snarkjs_json_vk_round_trip) {
    static const uint32_t sizes[] = {0, 1, 3, 17};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(sizes); i++) {
        bn254_vk_round_trip(sizes[i]);
        bls12_381_vk_round_trip(sizes[i]);
    }
}

TEST_CASE(snarkjs_json_public_round_trip) {
    static const size_t sizes[] = {0, 1, 2, 9};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(sizes); i++) {
        bn254_public_round_trip(sizes[i]);
        bls12_381_public_round_trip(sizes[i]);
    }
    /* The exact layout, and snarkjs's empty array. */
    zkp_g16_public pub = {ZKPIPE_CURVE_BN254, 0, NULL};
    char *t = write_public_s(&pub);
    ASSERT_STR_EQ(t, "[\n]");
    free(t);
    ASSERT_OK(read_public_n("[\n]", 3, ZKPIPE_CURVE_BN254, &pub, NULL));
    ASSERT(pub.n == 0 && pub.values == NULL);
    const char *two = "[\n \"0\",\n \"" BN254_R_MINUS_1 "\"\n]";
    ASSERT_OK(read_public_n(two, strlen(two), ZKPIPE_CURVE_BN254, &pub, NULL));
    ASSERT_EQ_U64(pub.n, 2);
    ASSERT_EQ_U64(pub.values[0] | pub.values[1] | pub.values[2] | pub.values[3], 0);
    ASSERT_EQ_U64(pub.values[4], 0x43e1f593f0000000ULL);
    ASSERT_EQ_U64(pub.values[7], 0x30644e72e131a029ULL);
    t = write_public_s(&pub);
    ASSERT_STR_EQ(t, two);
    free(t);
    /* Values must be canonical to be written. */
    pub.values[4] += 1;
    char *out = (char *)1;
    size_t len = 1;
    ASSERT_EQ_STATUS(zkp_snarkjs_write_public(&pub, &out, &len), ZKPIPE_ERR_INVALID_ARGUMENT);
    ASSERT(out == NULL && len == 0);
    zkp_g16_public_release(&pub);
}

/* ---- rejections ---------------------------------------------------------------- */

TEST_CASE(snarkjs_json_rejects_bad_proofs) {
    const char *bn = kat_proof_bn128, *bls = kat_proof_bls12381;
    /* protocol and curve */
    expect_mut(PROOF, bn, "\"groth16\"", "\"plonk\"", ZKPIPE_ERR_UNSUPPORTED);
    expect_mut(PROOF, bn, "\"groth16\"", "\"groth16\\u0000\"", ZKPIPE_ERR_UNSUPPORTED);
    expect_mut(PROOF, bn, "\"groth16\"", "16", ZKPIPE_ERR_PARSE);
    expect_mut(PROOF, bn, "\"bn128\"", "\"bn256\"", ZKPIPE_ERR_UNSUPPORTED);
    expect_mut(PROOF, bn, "\"bn128\"", "\"\"", ZKPIPE_ERR_UNSUPPORTED);
    expect_mut(PROOF, bls, "\"bls12381\"", "\"bls12377\"", ZKPIPE_ERR_UNSUPPORTED);
    expect_mut(PROOF, bn, "\"bn128\"", "\"bn254\"", ZKPIPE_OK); /* an alias */
    /* the same coordinates under the other curve's name are not on its curve */
    expect_mut(PROOF, bn, "\"bn128\"", "\"bls12381\"", ZKPIPE_ERR_NOT_ON_CURVE);
    /* missing members */
    expect_mut(PROOF, bn, "\"pi_a\"", "\"pi_x\"", ZKPIPE_ERR_PARSE);
    expect_mut(PROOF, bn, "\"pi_b\"", "\"pi_x\"", ZKPIPE_ERR_PARSE);
    expect_mut(PROOF, bn, "\"pi_c\"", "\"pi_x\"", ZKPIPE_ERR_PARSE);
    expect_mut(PROOF, bn, "\"protocol\"", "\"Protocol\"", ZKPIPE_ERR_PARSE);
    expect_mut(PROOF, bn, "\"curve\"", "\"curves\"", ZKPIPE_ERR_PARSE);
    expect_status(PROOF, "[]", ZKPIPE_ERR_PARSE, "an array");
    expect_status(PROOF, "{}", ZKPIPE_ERR_PARSE, "empty object");
    /* not JSON, or duplicate members */
    expect_status(PROOF, "", ZKPIPE_ERR_PARSE, "empty");
    expect_mut(PROOF, bn, "\n}", "\n},", ZKPIPE_ERR_PARSE);
    expect_mut(PROOF, bn, "\"curve\": \"bn128\"", "\"curve\": \"bn128\", \"curve\": \"bn128\"", ZKPIPE_ERR_PARSE);
    /* array lengths and types */
    expect_mut(PROOF, bn, "\"2\",\n  \"1\"", "\"2\",\n  \"1\", \"1\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"1\",\n  \"2\",\n  \"1\"\n", "\"1\"\n", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"1\",\n  \"2\",\n  \"1\"\n", "\"1\", \"2\"\n", ZKPIPE_OK); /* [x, y] */
    expect_mut(PROOF, bn, "\"pi_a\": [", "\"pi_a\": [[\"1\"], ", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"pi_a\": [\n  \"1\",", "\"pi_a\": [\n  1,", ZKPIPE_ERR_PARSE);
    expect_mut(PROOF, bn, "\"pi_a\": [", "\"pi_a\": {\"x\": [", ZKPIPE_ERR_PARSE);
    expect_mut(PROOF, bn, "[\n   \"1\",\n   \"0\"\n  ]", "[\n   \"1\"\n  ]", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "[\n   \"1\",\n   \"0\"\n  ]", "[\"1\", \"0\", \"0\"]", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "[\n   \"1\",\n   \"0\"\n  ]", "\"1\"", ZKPIPE_ERR_PARSE);
    /* decimal strings */
    expect_mut(PROOF, bn, "\"2\"", "\"0x2\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"2\"", "\"\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"2\"", "\" 2\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"2\"", "\"+2\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"2\"", "\"-2\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"2\"", "\"2.0\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"2\"", "\"2\\u0000\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"2\"", "\"02\"", ZKPIPE_ERR_NON_CANONICAL);
    expect_mut(PROOF, bn, "\"2\"", "\"1" "0000000000000000000000000000000000000000000000000000000000"
               "00000000000000000000000000000000000000000000000000000000000000000000000000000000000\"",
               ZKPIPE_ERR_NON_CANONICAL);
    /* z other than 1 (or 0, infinity) */
    expect_mut(PROOF, bn, "\"2\",\n  \"1\"", "\"2\",\n  \"2\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(PROOF, bn, "\"2\",\n  \"1\"", "\"2\",\n  \"0\"", ZKPIPE_OK); /* infinity */
    /* coordinates >= p */
    expect_mut(PROOF, bn, "\"1\",\n  \"2\"", "\"" BN254_P "\",\n  \"2\"", ZKPIPE_ERR_NON_CANONICAL);
    expect_mut(PROOF, bn, "\"2\",\n  \"1\"", "\"" BN254_P "\",\n  \"1\"", ZKPIPE_ERR_NON_CANONICAL);
    expect_mut(PROOF, bn, "\"1\",\n   \"0\"", "\"1\",\n   \"" BN254_P "\"", ZKPIPE_ERR_NON_CANONICAL);
    /* off the curve */
    expect_mut(PROOF, bn, "\"2\"", "\"3\"", ZKPIPE_ERR_NOT_ON_CURVE);
    expect_mut(PROOF, bn, "\"10857046999023057135944570762232829481370756359578518086990519993285655852781\"",
               "\"10857046999023057135944570762232829481370756359578518086990519993285655852782\"",
               ZKPIPE_ERR_NOT_ON_CURVE);
    /* on the curve, outside the subgroup: BN254 G2 (G1 has cofactor 1), BLS12-381 G1 and G2 */
    expect_mut(PROOF, bn,
               "[\n  [\n   \"10857046999023057135944570762232829481370756359578518086990519993285655852781\",\n"
               "   \"11559732032986387107991004021392285783925812861821192530917403151452391805634\"\n  ],\n"
               "  [\n   \"8495653923123431417604973247489272438418190587263600148770280649306958101930\",\n"
               "   \"4082367875863433681332203403145435568316851327593401208105741076214120093531\"\n  ],",
               "[[\"16822293178985205686686609029438932806197569099043346969104243752415831087716\","
               "\"17047491156905064227056106158746436672238108318846537336624005504841638368389\"],"
               "[\"10611574632012385055875445828920353651629016259851485026787628308827609658555\","
               "\"11315458969115457541480703864071442359817607928874393260084960398737329160009\"],",
               ZKPIPE_ERR_NOT_IN_SUBGROUP);
    char *g1 = replaced(bls, "\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]",
                        "\"pi_c\": [\"0\", \"2\", \"1\"]");
    expect_status(PROOF, g1, ZKPIPE_ERR_NOT_IN_SUBGROUP, "BLS12-381 G1 (0, 2)");
    free(g1);
    expect_mut(PROOF, bls, "\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]",
               "\"pi_c\": [\"234086342925043084833474277661271391156833664742902567120842772888915860002"
               "7888757646270779285716894072046748033\", \"31463520737603677000322489857080544563784943614"
               "94737282302777563467885122524914092386545326462426836048349226161926\", \"1\"]",
               ZKPIPE_ERR_NOT_IN_SUBGROUP);
    char *g2 = replaced(bls, "\"pi_b\": [", "\"pi_b\": [[\"131186535424069795242402000542835765928669946988184567294841056988354351909084671814028954990661141414149313474331"
                        "6\", \"1298594578442862713651880995566275124713427546599496068198502910076979139030548332887597445625270895760345658828848\"], "
                        "[\"2634162123672174354756937999119115841725250130033425141625100424122301942367462188069463344724344660315357687850459\", "
                        "\"3126596372472945238373095204980572377837178346400887243138464589839084534609425400125705802009753821120030603404984\"], "
                        "[\"1\", \"0\"]], \"unused\": [");
    expect_status(PROOF, g2, ZKPIPE_ERR_NOT_IN_SUBGROUP, "BLS12-381 G2 point outside the subgroup");
    free(g2);
    /* BLS12-381 coordinate = p */
    expect_mut(PROOF, bls, "\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]",
               "\"pi_c\": [\"" BLS_P "\", \"1\", \"1\"]", ZKPIPE_ERR_NON_CANONICAL);
    /* diag names the member */
    zkp_diag d = {{0}};
    zkp_g16_proof p;
    char *t = replaced(bn, "\"1\",\n   \"0\"", "\"1\",\n   \"x\"");
    ASSERT_EQ_STATUS(read_proof_n(t, strlen(t), &p, &d), ZKPIPE_ERR_BAD_ENCODING);
    ASSERT_MSG(strstr(d.msg, "pi_b[2][1]") != NULL, "message: %s", d.msg);
    free(t);
    /* Oversized input is refused before it is read. */
    ASSERT_EQ_STATUS(zkp_snarkjs_read_proof("{}", ZKP_SNARKJS_MAX_TEXT + 1, "big", &p, &d),
                     ZKPIPE_ERR_OUT_OF_RANGE);
    ASSERT_EQ_STATUS(zkp_snarkjs_read_proof(NULL, 0, NULL, &p, NULL), ZKPIPE_ERR_PARSE);
    ASSERT_EQ_STATUS(zkp_snarkjs_read_proof(bn, strlen(bn), NULL, NULL, NULL),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
}

TEST_CASE(snarkjs_json_rejects_bad_public_inputs) {
    expect_status(PUBLIC_BN, "[\"" BN254_R_MINUS_1 "\"]", ZKPIPE_OK, "r - 1");
    expect_status(PUBLIC_BN, "[\"" BN254_R "\"]", ZKPIPE_ERR_NON_CANONICAL, "r");
    expect_status(PUBLIC_BN, "[\"1\", \"" BN254_R_PLUS_1 "\"]", ZKPIPE_ERR_NON_CANONICAL, "r + 1");
    expect_status(PUBLIC_BN, "[\"" BN254_P "\"]", ZKPIPE_ERR_NON_CANONICAL, "p");
    expect_status(PUBLIC_BLS, "[\"" BLS_R "\"]", ZKPIPE_ERR_NON_CANONICAL, "BLS r");
    expect_status(PUBLIC_BLS, "[\"" BLS_R_PLUS_1 "\"]", ZKPIPE_ERR_NON_CANONICAL, "BLS r + 1");
    /* BN254's r is below BLS12-381's: fine there */
    expect_status(PUBLIC_BLS, "[\"" BN254_R "\"]", ZKPIPE_OK, "BN254 r on BLS12-381");
    expect_status(PUBLIC_BN, "[\"0\"]", ZKPIPE_OK, "zero");
    expect_status(PUBLIC_BN, "[1]", ZKPIPE_ERR_PARSE, "a number");
    expect_status(PUBLIC_BN, "[null]", ZKPIPE_ERR_PARSE, "null");
    expect_status(PUBLIC_BN, "[[\"1\"]]", ZKPIPE_ERR_PARSE, "nested");
    expect_status(PUBLIC_BN, "{\"0\": \"1\"}", ZKPIPE_ERR_PARSE, "an object");
    expect_status(PUBLIC_BN, "\"1\"", ZKPIPE_ERR_PARSE, "a string");
    expect_status(PUBLIC_BN, "[\"1\",]", ZKPIPE_ERR_PARSE, "trailing comma");
    expect_status(PUBLIC_BN, "[\"-1\"]", ZKPIPE_ERR_BAD_ENCODING, "negative");
    expect_status(PUBLIC_BN, "[\"1e3\"]", ZKPIPE_ERR_BAD_ENCODING, "exponent");
    expect_status(PUBLIC_BN, "[\"0x10\"]", ZKPIPE_ERR_BAD_ENCODING, "hex");
    expect_status(PUBLIC_BN, "[\"\"]", ZKPIPE_ERR_BAD_ENCODING, "empty string");
    expect_status(PUBLIC_BN, "[\"1\\u00002\"]", ZKPIPE_ERR_BAD_ENCODING, "embedded NUL");
    zkp_g16_public pub;
    ASSERT_EQ_STATUS(zkp_snarkjs_read_public("[]", 2, "x", (zkpipe_curve)7, &pub, NULL),
                     ZKPIPE_ERR_INVALID_ARGUMENT);
    zkp_diag d = {{0}};
    const char *t = "[\"1\", \"2\", \"" BN254_R "\"]";
    ASSERT_EQ_STATUS(read_public_n(t, strlen(t), ZKPIPE_CURVE_BN254, &pub, &d),
                     ZKPIPE_ERR_NON_CANONICAL);
    ASSERT_MSG(strstr(d.msg, "[2]") != NULL, "message: %s", d.msg);
}

/* snarkjs reads public inputs with BigInt(), which takes leading zeros:
 * so does zkpipe, with the same values, and the range check applies to the
 * value, not to the digits written. */
TEST_CASE(snarkjs_json_public_inputs_take_leading_zeros) {
    static const char *const texts[] = {
        "[\"01\", \"007\", \"00\", \"0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000042\"]",
        "[\"1\", \"7\", \"0\", \"42\"]",
    };
    zkp_g16_public a, b;
    zkp_diag d = {{0}};
    ASSERT_OK(read_public_n(texts[0], strlen(texts[0]), ZKPIPE_CURVE_BN254, &a, &d));
    ASSERT_OK(read_public_n(texts[1], strlen(texts[1]), ZKPIPE_CURVE_BN254, &b, &d));
    ASSERT_EQ_U64(a.n, 4);
    ASSERT_EQ_U64(b.n, 4);
    ASSERT_MEM_EQ(a.values, b.values, 4 * 4 * sizeof(uint64_t));
    zkp_g16_public_release(&a);
    zkp_g16_public_release(&b);
    /* r - 1 padded is fine, r padded is still out of range. */
    expect_status(PUBLIC_BN, "[\"000" BN254_R_MINUS_1 "\"]", ZKPIPE_OK, "0-padded r - 1");
    expect_status(PUBLIC_BN, "[\"0" BN254_R "\"]", ZKPIPE_ERR_NON_CANONICAL, "0-padded r");
    expect_status(PUBLIC_BLS, "[\"00" BLS_R "\"]", ZKPIPE_ERR_NON_CANONICAL, "0-padded BLS r");
    /* Digits only: hex is refused after a leading zero as before it. */
    expect_status(PUBLIC_BN, "[\"0x01\"]", ZKPIPE_ERR_BAD_ENCODING, "hex after a zero");
}

TEST_CASE(snarkjs_json_names_a_duplicate_key) {
    zkp_diag d = {{0}};
    const char *t = "{\"pi_a\": [\"1\", \"2\", \"1\"], \"pi_a\": [\"1\", \"2\", \"1\"]}";
    zkp_g16_proof p;
    ASSERT_EQ_STATUS(read_proof_n(t, strlen(t), &p, &d), ZKPIPE_ERR_PARSE);
    ASSERT_MSG(strstr(d.msg, "duplicate member name \"pi_a\"") != NULL, "message: %s", d.msg);
}

TEST_CASE(snarkjs_json_rejects_bad_vks) {
    const char *bn = kat_vk_bn128, *bls = kat_vk_bls12381;
    expect_mut(VK, bn, "\"groth16\"", "\"fflonk\"", ZKPIPE_ERR_UNSUPPORTED);
    expect_mut(VK, bls, "\"bls12381\"", "\"bls12_377\"", ZKPIPE_ERR_UNSUPPORTED);
    /* nPublic against IC */
    expect_mut(VK, bn, "\"nPublic\": 1", "\"nPublic\": 2", ZKPIPE_ERR_SIZE_MISMATCH);
    expect_mut(VK, bn, "\"nPublic\": 1", "\"nPublic\": 0", ZKPIPE_ERR_SIZE_MISMATCH);
    expect_mut(VK, bls, "\"nPublic\": 1", "\"nPublic\": 18446744073709551617", ZKPIPE_ERR_SIZE_MISMATCH);
    expect_mut(VK, bn, "\"nPublic\": 1", "\"nPublic\": -1", ZKPIPE_ERR_PARSE);
    expect_mut(VK, bn, "\"nPublic\": 1", "\"nPublic\": 1.0", ZKPIPE_ERR_PARSE);
    expect_mut(VK, bn, "\"nPublic\": 1", "\"nPublic\": 1e0", ZKPIPE_ERR_PARSE);
    expect_mut(VK, bn, "\"nPublic\": 1", "\"nPublic\": \"1\"", ZKPIPE_ERR_PARSE);
    expect_mut(VK, bn, "\"IC\": [", "\"IC\": [[\"1\", \"2\", \"1\"], ", ZKPIPE_ERR_SIZE_MISMATCH);
    char *no_ic = replaced(bn, "\"nPublic\": 1", "\"nPublic\": 0, \"IC\": [], \"unused\": 0");
    expect_status(VK, no_ic, ZKPIPE_ERR_PARSE, "duplicate IC");
    free(no_ic);
    /* missing members */
    static const char *const members[] = {"\"protocol\"", "\"curve\"", "\"nPublic\"", "\"vk_alpha_1\"",
                                          "\"vk_beta_2\"", "\"vk_gamma_2\"", "\"vk_delta_2\"", "\"IC\""};
    for (size_t i = 0; i < ZKP_ARRAY_LEN(members); i++)
        expect_mut(VK, bn, members[i], "\"renamed\"", ZKPIPE_ERR_PARSE);
    /* points */
    expect_mut(VK, bn, "\"vk_alpha_1\": [\n  \"1\",\n  \"2\"", "\"vk_alpha_1\": [\n  \"1\",\n  \"3\"",
               ZKPIPE_ERR_NOT_ON_CURVE);
    expect_mut(VK, bn, "\"IC\": [\n  [\n   \"1\"", "\"IC\": [\n  [\n   \"" BN254_P "\"", ZKPIPE_ERR_NON_CANONICAL);
    expect_mut(VK, bn, "\"IC\": [\n  [\n   \"1\"", "\"IC\": [\n  [\n   \"x\"", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(VK, bls, "\"IC\": [\n  [", "\"IC\": [\n  [\"0\", \"2\", \"1\"],\n  [", ZKPIPE_ERR_SIZE_MISMATCH);
    char *g1 = replaced(bls, "\"IC\": [\n  [", "\"IC\": [\n  [\"0\", \"2\", \"1\"],\n  [");
    char *g1b = replaced(g1, "\"nPublic\": 1", "\"nPublic\": 2");
    expect_status(VK, g1b, ZKPIPE_ERR_NOT_IN_SUBGROUP, "BLS12-381 G1 (0, 2) in IC");
    free(g1);
    free(g1b);
    expect_mut(VK, bn, "\"vk_gamma_2\": [\n  [", "\"vk_gamma_2\": [\n  [\"1\", \"0\"],\n  [", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(VK, bn, "\"vk_delta_2\": [\n  [", "\"vk_delta_2\": [[\"1\"], [\"1\", \"0\"], [\"1\", \"0\"]], \"unused\": [\n  [",
               ZKPIPE_ERR_BAD_ENCODING);
    /* vk_alphabeta_12: shape, range and value */
    expect_mut(VK, bn, "\"vk_alphabeta_12\": [", "\"vk_alphabeta_12\": [[], ", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(VK, bn, "\"vk_alphabeta_12\": [\n  [", "\"vk_alphabeta_12\": [\n  [[\"1\", \"0\"], ", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(VK, bn, "\"vk_alphabeta_12\": [\n  [\n   [", "\"vk_alphabeta_12\": [\n  [\n   [\"0\", ", ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(VK, bn, "\"vk_alphabeta_12\": [", "\"vk_alphabeta_12\": {\"a\": [", ZKPIPE_ERR_PARSE);
    expect_mut(VK, bn, "\"17264119758069723980713015158403419364912226240334615592005620718956030922389\"",
               "\"17264119758069723980713015158403419364912226240334615592005620718956030922388\"",
               ZKPIPE_ERR_BAD_ENCODING);
    expect_mut(VK, bn, "\"17264119758069723980713015158403419364912226240334615592005620718956030922389\"",
               "\"" BN254_P "\"", ZKPIPE_ERR_NON_CANONICAL);
    expect_mut(VK, bn, "\"17264119758069723980713015158403419364912226240334615592005620718956030922389\"",
               "17", ZKPIPE_ERR_PARSE);
    /* a changed alpha no longer matches the stated alphabeta */
    expect_mut(VK, bn, "\"vk_alpha_1\": [\n  \"1\",\n  \"2\",\n  \"1\"",
               "\"vk_alpha_1\": [\n  \"1\",\n  \"2\",\n  \"0\"", ZKPIPE_ERR_BAD_ENCODING);
    /* truncated documents: every prefix fails cleanly */
    for (size_t n = 0; n < strlen(bn); n++) {
        zkp_g16_vk vk;
        ASSERT_EQ_STATUS(read_vk_n(bn, n, &vk, NULL), ZKPIPE_ERR_PARSE);
    }
}

/* Random byte changes: anything may come back except a crash or a leak, and
 * every accepted document must rewrite to a document that reads the same. */
TEST_CASE(snarkjs_json_survives_mutations) {
    static const char *const bases[] = {kat_proof_bn128, kat_proof_bls12381, kat_vk_bn128,
                                        kat_vk_bls12381};
    static const char alphabet[] = "0123456789[]{},:\" \\u-.eE19x\n";
    for (unsigned it = 0; it < test_iters(300); it++) {
        size_t b = test_rng_u64() % ZKP_ARRAY_LEN(bases);
        size_t len = strlen(bases[b]);
        char *t = copy_exact(bases[b], len);
        unsigned edits = 1 + (unsigned)(test_rng_u64() % 3);
        for (unsigned e = 0; e < edits; e++)
            t[test_rng_u64() % len] = alphabet[test_rng_u64() % (sizeof alphabet - 1)];
        size_t n = len - (test_rng_u64() % 4 == 0 ? test_rng_u64() % len : 0);
        if (b < 2) {
            zkp_g16_proof p;
            if (read_proof_n(t, n, &p, NULL) == ZKPIPE_OK) {
                char *w = write_proof_s(&p);
                zkp_g16_proof q;
                ASSERT_OK(read_proof_n(w, strlen(w), &q, NULL));
                free(w);
            }
        } else {
            zkp_g16_vk vk;
            if (read_vk_n(t, n, &vk, NULL) == ZKPIPE_OK) {
                char *w = write_vk_s(&vk);
                zkp_g16_vk back;
                ASSERT_OK(read_vk_n(w, strlen(w), &back, NULL));
                zkp_g16_vk_release(&back);
                zkp_g16_vk_release(&vk);
                free(w);
            }
        }
        zkp_g16_public pub;
        if (read_public_n(t, n, ZKPIPE_CURVE_BN254, &pub, NULL) == ZKPIPE_OK)
            zkp_g16_public_release(&pub);
        free(t);
    }
}
