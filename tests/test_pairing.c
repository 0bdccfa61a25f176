/* The optimal ate pairings of both curves (pairing_props_impl.h), with the
 * points produced by a small independent group implementation
 * (pairing_ec_impl.h) and known answers copied from tests/vectors/bn254.json
 * and bls12_381.json (the first three "pairing" entries; see the README
 * there for how @noble/curves computed them with the exact exponent). */
#include "field/field.h"
#include "pairing/pairing.h"
#include "pairing/pairing_params.h"
#include "test.h"

typedef struct {
    const char *a, *b;   /* p = a·G1, q = b·G2 */
    const char *p[2];    /* x, y */
    const char *q[4];    /* x.c0, x.c1, y.c0, y.c1 */
    const char *out[12]; /* e(p, q) in the tower order of the README */
} pairing_kat_t;

static const pairing_kat_t bn254_kats[] = {
    {
        "0x0000000000000000000000000000000000000000000000000000000000000001",
        "0x0000000000000000000000000000000000000000000000000000000000000001",
        {
            "0x0000000000000000000000000000000000000000000000000000000000000001",
            "0x0000000000000000000000000000000000000000000000000000000000000002",
        },
        {
            "0x1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed",
            "0x198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2",
            "0x12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa",
            "0x090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b",
        },
        {
            "0x12c70e90e12b7874510cd1707e8856f71bf7f61d72631e268fca81000db9a1f5",
            "0x084f330485b09e866bc2f2ea2b897394deaf3f12aa31f28cb0552990967d4704",
            "0x0e841c2ac18a4003ac9326b9558380e0bc27fdd375e3605f96b819a358d34bde",
            "0x2067586885c3318eeffa1938c754fe3c60224ee5ae15e66af6b5104c47c8c5d8",
            "0x01676555de427abc409c4a394bc5426886302996919d4bf4bdd02236e14b3636",
            "0x2b03614464f04dd772d86df88674c270ffc8747ea13e72da95e3594468f222c4",
            "0x2c53748bcd21a7c038fb30ddc8ac3bf0af25d7859cfbc12c30c866276c565909",
            "0x27ed208e7a0b55ae6e710bbfbd2fd922669c026360e37cc5b2ab862411536104",
            "0x1ad9db1937fd72f4ac462173d31d3d6117411fa48dba8d499d762b47edb3b54a",
            "0x279db296f9d479292532c7c493d8e0722b6efae42158387564889c79fc038ee3",
            "0x0dc26f240656bbe2029bd441d77c221f0ba4c70c94b29b5f17f0f6d08745a069",
            "0x108c19d15f9446f744d0f110405d3856d6cc3bda6c4d537663729f5257628417",
        },
    },
    {
        "0x2875e437f346bf78860e5e444521a4e60fc5945a3d883df0f59ce38827641cf0",
        "0x101ef9e85577a7efb0dd1cdcd010d62883de48d360e767de1cd9f4b42df63672",
        {
            "0x2306f92e6270a91730b3af112b5d3c1dfa086eb09c70d91d0af4b9ea3469661d",
            "0x2ac4190aa9bbcac1d4b691fe9718bf8c6bdb1f436b474198e4244021a7f3b259",
        },
        {
            "0x144bbb18caee8112e4922efae7b1ee229e2264fb250b28c2b48dca7e3717a329",
            "0x2756d6a07d967b24b07799d1016b4d815f9bfa7ffd6bfe5fdcb3fcfe02c2ce46",
            "0x21eb0edeb6a29e8143dc0bae472126c1f2055c8075d01a956ea2335b3fbe14c0",
            "0x028ce1a26b76612b7520c06d165575d7fed94d7f83d1f038d2eb0d0bffe3d65a",
        },
        {
            "0x297b44498acb2357004d1265377d7009d44f2bd3621b0856a717b48977d5a370",
            "0x111ccd4a42f5bd5c81fa4fae26f3048024765c1fe4cf0d7294c0a9f986e91188",
            "0x06fdff750874ec5c892736fb108f00cee883f46210f353a647c4d2bcce470b03",
            "0x012893233e4d54b96b1da8e3a27b5b00a3610327c4ca7b73861a11895778e8a3",
            "0x277ecded06f37a2fbe0842a5b21fdaa959fbc28a7ba804e0be36bb94271cdf99",
            "0x1d84bde270770f7a72e0d434186cbb0f98bb392d1c1cc0bbaa20c29efd1d26fb",
            "0x0f699921ae2e77e38ab89933f6b32b2270ba469bfe7fecec48c07f213e0dd058",
            "0x257abe5b8c762b0bc3264c4528b4afa0d980e6f5a94482dc463bf61c6b801479",
            "0x2343b3b152f00747d406e89ce76373909faa03a1a52111ced3596bd89e9c8cf1",
            "0x1cdc01efab07b1687a759e1eabaeab10cd2f3e54a803af6023dee1f2fcc88070",
            "0x02c83c68044209f2898876b27503dc1a6a1a0644d55d19d95896abb86eaa0109",
            "0x0bbff241957d4f2412f64a64c34fd635e8a4fc55a48f87d41a9d84e529b6e61b",
        },
    },
    {
        "0x1ef5b893cbceaf8bfe19210ac30dba5bf80952c1f78a1d275fcb7a7e6cd5adb9",
        "0x2fd74338723eabdb5abaace227977bace6c5a7287c0c9abe5a070c91a88b02ce",
        {
            "0x019abbb6244cc1c951baa36528b7652e66a8f13f5419fdb259a3c2307d541a5a",
            "0x1b0f81000b5b36ab2ee320c3b40590fcc2547f6fd5bbe6f2fc865c1e5548b032",
        },
        {
            "0x1876b877acddc55d390b5e6db35172c4ae19b0b8e1ffcda9ee3809187658e2bc",
            "0x0ffce927313cd4a8144fd7c1d2b77ee93df622d903696acec78b80fac4e9f28b",
            "0x0cd2f7dabdd4f2a9c0e50936ef6152e4ceae3eb8658e7c33f410103dc77dd686",
            "0x0d73f9a557c77f81e9a1d0248f2074da770b014f96e337b0425c33eac0be8538",
        },
        {
            "0x07753a8c79b33dd29fbc03a0119f927b914fd0805ec30f1e01c53f205c4c2db6",
            "0x255e98d2ab39676d8883494b5e0828b0ac541fbe38ff4bb2efc903cee38dbe0b",
            "0x2bbaf8a278927c2f750f004c8883ce1c8d1f0840f52bff0c8a62e4c4b155b55b",
            "0x26533fda4fc7c5aeb541061de1f69f41d10fe977727d3188abb11db66a9a863a",
            "0x0338f772ef345325eab87a9aeeb0f4ddad19ac4ee4d4c1f74716f48b02e582a3",
            "0x2fa3bdbacce781326beebaacabb993fbbf652e12f31e86873fb924e174f09ab0",
            "0x2cfbc4523b8b30585dc82954e43aa6d96ecd8ccbe2ba6d15a72cf3c80d085b42",
            "0x2bd9c026606f052b55e9df73ec22e524e69d4c2ec927ed24c9b7a000f21c23cc",
            "0x11e6cd9349ff22f70ec0e07db376e1e5bbe69fb4523735c04fd02a0b024a2dd0",
            "0x047be15f3d039bcf2af6c59dc037e09847a5bb412d9c3eeb12fb44de14a20a7e",
            "0x0be9029e56f41fc18143e2575d171eae6faf83ace7f05597e1d987170d19cc48",
            "0x2c0a3bcfebce086751de318170c685449f017891fd00e83df430f0b76fc7cb9a",
        },
    },
};
static const pairing_kat_t bls12_381_kats[] = {
    {
        "0x0000000000000000000000000000000000000000000000000000000000000001",
        "0x0000000000000000000000000000000000000000000000000000000000000001",
        {
            "0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb",
            "0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1",
        },
        {
            "0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
            "0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e",
            "0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
            "0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be",
        },
        {
            "0x11619b45f61edfe3b47a15fac19442526ff489dcda25e59121d9931438907dfd448299a87dde3a649bdba96e84d54558",
            "0x153ce14a76a53e205ba8f275ef1137c56a566f638b52d34ba3bf3bf22f277d70f76316218c0dfd583a394b8448d2be7f",
            "0x095668fb4a02fe930ed44767834c915b283b1c6ca98c047bd4c272e9ac3f3ba6ff0b05a93e59c71fba77bce995f04692",
            "0x16deedaa683124fe7260085184d88f7d036b86f53bb5b7f1fc5e248814782065413e7d958d17960109ea006b2afdeb5f",
            "0x09c92cf02f3cd3d2f9d34bc44eee0dd50314ed44ca5d30ce6a9ec0539be7a86b121edc61839ccc908c4bdde256cd6048",
            "0x111061f398efc2a97ff825b04d21089e24fd8b93a47e41e60eae7e9b2a38d54fa4dedced0811c34ce528781ab9e929c7",
            "0x01ecfcf31c86257ab00b4709c33f1c9c4e007659dd5ffc4a735192167ce197058cfb4c94225e7f1b6c26ad9ba68f63bc",
            "0x08890726743a1f94a8193a166800b7787744a8ad8e2f9365db76863e894b7a11d83f90d873567e9d645ccf725b32d26f",
            "0x0e61c752414ca5dfd258e9606bac08daec29b3e2c57062669556954fb227d3f1260eedf25446a086b0844bcd43646c10",
            "0x0fe63f185f56dd29150fc498bbeea78969e7e783043620db33f75a05a0a2ce5c442beaff9da195ff15164c00ab66bdde",
            "0x10900338a92ed0b47af211636f7cfdec717b7ee43900eee9b5fc24f0000c5874d4801372db478987691c566a8c474978",
            "0x1454814f3085f0e6602247671bc408bbce2007201536818c901dbd4d2095dd86c1ec8b888e59611f60a301af7776be3d",
        },
    },
    {
        "0x0a03ed103e30be628935f23c2470914e098c1f8d0c97bbcc536eb2d681d3811d",
        "0x66caacc8e39b5e94a54588902516a2df73aecdf20a8eadf1a7c0e4c58780a748",
        {
            "0x1251b71565c0412160e786db57ad98a696b153216baa276390fb00b8dc4473cb04c7dc551ddfc9b3d51a34df5034a841",
            "0x0de55b80c3871bd5c02b371f594f988ae0c08625ccf28dbf125a52f4171cf215b031985266c75469c6dea4e2f4098719",
        },
        {
            "0x09f8499b51e9aac498959d2c206a64aefce8da7080071c23b6561fc2def941a8dfb774098bbb9e88f09dff3f1cd9bc35",
            "0x09cb409975b7ebfbc79d10f4963edb88db06a49331d2a5ba7fe2a4a769a84816938a36efe36a9e8cf5a3c674d7e6c6a3",
            "0x1662bfa45a0f4677c0c194d8872c0efe59112a54ab957deebcdf78982d3298c25113d906a2b3dae7334064c389cb3e2d",
            "0x0236229a983ea5d0b1c9a0c3621b12beb5d78d3677cce792a9714abf79cd0caecbd438770e7ddd1a8c6b326c373a0429",
        },
        {
            "0x0647dacbcb903d7e531ba7298182afa95017e3aa9d70ecddf069fde46b263046e446cb2938d3aafbcd8de5062581396b",
            "0x02887c0f7764686fd397c314af8cde1021757a6388a56aefc73c4e9e8a9c34426fea3e29fdba56c0fdcfb3d035c2a53a",
            "0x0c5f60e131e3321865ee7eaa2e00ec4fb635bdde81553aad0e3af22a6fd41c3b9739264e12b3548ecffa50fadf6beb65",
            "0x0422f09ad98053463182ee48485c187adedb4cf65a6f0a996825db294d6326b9459197421ed592ddd4eef9d6bb89db14",
            "0x0d6a64e88bdbd7da4f7961316063f2cbcefbbe415eadf8dfae2fde899da8f4e81bbf07204cb88c320c774033bdc1c714",
            "0x0b846cdfe2df60b37846d8b5711247c8d64f0dd5d6220a57540d9c8bf3531db32ff977ad69c9e3a824e0b389e407ab56",
            "0x14f4c5031c4ac8ec7c193f89ba32482eccca20162455e613d1dd81f32f6488f8410f8334826f8d99b769722bcbf7403d",
            "0x059e712bdd7ee27891865ee2de676dd4b12f805bf57315169d1581a26434f3b605f349aedce45ae9e724d1b2e40da699",
            "0x08c737595bb7152e4b0784363e9d8e57b41114d1a9a86216484e2c7442ed036c621a9b036ad9b2b156f7f2b3c333c8dc",
            "0x06b6ba88fd2fd690d51bd7dfd98bbd3e333a8def8feb9b64b1bc76e0da038d261040515bb5127ef94408b689627e9a4d",
            "0x15126efafd9f2e7c7468431f29affd0c402393de59bbbaff7d28418e1748cd34c93007928d71e34f6f90dbde2ae488be",
            "0x0b93a39280ccf4478bd45d4ae0a062ee314fbcca4dcf5b58ec234cbeea57b12ee8dda297c5bf1659552dc8ef4f2bc32d",
        },
    },
    {
        "0x0e528d819cd07010ee3ea220f4205a3b3b7bd283fbc451e31c25ea2385809b63",
        "0x48def136c58fc7dab9a0a4f56505ef27af696a0c9d2c0b67b6fda48bd46a255f",
        {
            "0x0bf1bb22f2b6001ca865fef8f261bb2531f725e0a701ecc973c659ac6280d263f48e6caba9c59e8dc9f48ea28b894b61",
            "0x0cbfe13ae3dadd901bed3a3564efda3f85e24a0d804c3d618938d8906d00bf803798b9fd0f4e356f947429a55eb3ff9f",
        },
        {
            "0x0170347d9d4439ae63545777a7d1878f6171b0dc410bd741cf167b16f91939542dc5b98a9c4dbea7ba4fff5d268b40ae",
            "0x0cfaab3826bcaa98176d79c8e6660fd14c1967764236aca7c27e5885ee232d51a078443e85ce9c7e72bb90a5a7632556",
            "0x0127b6708be2f41610d857a53fbb44cbc0dfa431fdb96f77b6763a43a5837ae7102020298d01703e7f0b687f284c4bf5",
            "0x11ad1222859a855b0c6f909a84b528d75790884273f71de858087388ac87ee23a4b2acc5f6c96dba215498b057ecbc36",
        },
        {
            "0x14990bbf9d236865e695e7dc27abbee5d4fba67d7607d77b4d7bf22c024918fc40c0ca919f8e1c95d4a702fd08214756",
            "0x0a3ff15f843b098306e189e80bbabb633d158977185a616064383ade6b051ccef0b1093337235b1d8c8cfe4ca51ad206",
            "0x1237d2cf4b93adee590e2f5e53335fa110bdd6ade124c19682156be9658f5fcc3142fa5967004d680cc9035bbb9ac852",
            "0x17025df0c43665605d7c2a3ddcae7b561273bce9fc7d1215a3214c6ffb4f9b71868a4770454de45193fb3ef95bd0f2e5",
            "0x031169424f01275d86ffb98f911dc073088bd849b52ed42d648b2b8a01a5fa9c41e76dfa46b72bfec7db6a38151c83de",
            "0x1680e206dd56592e2336b2c43f132147593d5215a347bac3991aef0fb25f085288fbb6f1a4d1bbe6fcc86b9b617d3e6f",
            "0x048388510d712601cfc7b14a464bcc2adb314c56c2d8de33fc5fc943e7b2b5a3027ef85ad07952e7670214fd535843ed",
            "0x134bca7c571805f32a926149d9046b4ee256871875ed789387996ea1cabaaae01b09400044c2312e355529114fe36e6d",
            "0x0f86b5b05f937d61a1d2f7ea2efe76671cc5edae99441c1c4522c7d2c2459acdbd3b9e41f9485c525ed8dbacc072ff48",
            "0x09f7c1ca381f697e84d2a89acd4e7b0728f0cf677b53aa4c7509b9b526980af512ac3c13d39c10c376f74618abebfe0d",
            "0x139a57291bbaa689115d9646cf4c7e6ad7544b97796e49e8931fac01e6dd00facec297d827d3ea2d5a57ac68fb60648c",
            "0x0b33ffa87165f90e33be01a7c9c6a2f015c4dbb1126d9fefddb5175f79410e1e3ebaf78972f8e25031b4d596c78e6e0d",
        },
    },
};

#define EC test_bn254_g1
#define EF bn254_fq
#define EA bn254_g1_affine_t
#include "pairing_ec_impl.h"
#define EC test_bn254_g2
#define EF bn254_fq2
#define EA bn254_g2_affine_t
#include "pairing_ec_impl.h"
#define EC test_bls12_381_g1
#define EF bls12_381_fp
#define EA bls12_381_g1_affine_t
#include "pairing_ec_impl.h"
#define EC test_bls12_381_g2
#define EF bls12_381_fp2
#define EA bls12_381_g2_affine_t
#include "pairing_ec_impl.h"

#define PC bn254
#define FB bn254_fq
#define F2 bn254_fq2
#define F12 bn254_fq12
#define FR bn254_fr
#define PPARAM BN254
#define G1_B 3
#include "pairing_props_impl.h"

#define PC bls12_381
#define FB bls12_381_fp
#define F2 bls12_381_fp2
#define F12 bls12_381_fp12
#define FR bls12_381_fr
#define PPARAM BLS12_381
#define G1_B 4
#include "pairing_props_impl.h"

TEST_CASE(bn254_pairing_known_answers) { test_pairing_bn254_known_answers(); }
TEST_CASE(bn254_pairing_bilinearity) { test_pairing_bn254_bilinearity(); }
TEST_CASE(bn254_pairing_final_exp_exact) { test_pairing_bn254_final_exp_exact(); }
TEST_CASE(bn254_pairing_multi) { test_pairing_bn254_multi(); }
TEST_CASE(bls12_381_pairing_known_answers) { test_pairing_bls12_381_known_answers(); }
TEST_CASE(bls12_381_pairing_bilinearity) { test_pairing_bls12_381_bilinearity(); }
TEST_CASE(bls12_381_pairing_final_exp_exact) { test_pairing_bls12_381_final_exp_exact(); }
TEST_CASE(bls12_381_pairing_multi) { test_pairing_bls12_381_multi(); }
